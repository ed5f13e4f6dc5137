// The facts `agentlog inspect` prints, gathered in one pass over a log: each reply with its end
// reason, duration, model and tool calls and usage; tool results by tool and state; every pause
// with how it was resolved; every interrupt. Plain data, so `--json` prints it as it is.
import type { AgentEvent } from '../core/events.js'
import type { Usage } from '../core/messages.js'
import { zeroUsage } from '../core/messages.js'

export interface ReplySummary {
  reply_id: string
  session_id: string
  from: number
  to: number | null
  /** The end reason, or `paused` / `running` for a reply the log leaves open. */
  end: string
  error: { type: string; message: string } | null
  seconds: number | null
  model_calls: number
  tool_calls: number
  usage: Usage
  prompt: string
}

export interface PauseSummary { seq: number; reply_id: string; kind: 'confirm' | 'external'; calls: string[]; outcome: string; outcome_seq: number | null }
export interface InterruptSummary { seq: number; reply_id: string; kind: 'cancel' | 'user' }

export interface LogSummary {
  events: number
  sessions: string[]
  replies: ReplySummary[]
  usage: Usage
  tools: Record<string, Record<string, number>>
  results: Record<string, number>
  pauses: PauseSummary[]
  interrupts: InterruptSummary[]
}

export const summarize = (events: readonly AgentEvent[]): LogSummary => {
  const replies = new Map<string, ReplySummary & { started_at: string }>()
  const callNames = new Map<string, string>()
  const ended = new Set<string>()
  const tools: Record<string, Record<string, number>> = {}
  const pauses: PauseSummary[] = []
  const interrupts: InterruptSummary[] = []
  const usage = zeroUsage()
  let prompt = ''
  let paused: PauseSummary | null = null

  events.forEach((e, i) => {
    const seq = i + 1
    const reply = 'reply_id' in e ? replies.get(e.reply_id) : undefined
    switch (e.type) {
      case 'USER_MESSAGE':
        prompt = e.msg.content.map((b) => (b.type === 'text' ? b.text : '')).join('')
        return
      case 'REPLY_START':
        replies.set(e.reply_id, {
          reply_id: e.reply_id, session_id: e.session_id, from: seq, to: null, end: 'running', error: null, seconds: null,
          model_calls: 0, tool_calls: 0, usage: zeroUsage(), prompt, started_at: e.created_at,
        })
        return
      case 'REPLY_END':
        if (!reply) return
        Object.assign(reply, { to: seq, end: e.finished_reason, error: e.error, seconds: (Date.parse(e.created_at) - Date.parse(reply.started_at)) / 1000 })
        if (paused?.reply_id === e.reply_id && paused.outcome === 'waiting') paused.outcome = 'ended'
        return
      case 'MODEL_CALL_START':
        if (reply) reply.model_calls++
        return
      case 'MODEL_CALL_END':
        for (const key of Object.keys(usage) as (keyof Usage)[]) {
          usage[key] += e[key]
          if (reply) reply.usage[key] += e[key]
        }
        return
      case 'TOOL_CALL_START':
        callNames.set(e.tool_call_id, e.tool_call_name)
        if (reply) reply.tool_calls++
        return
      case 'TOOL_RESULT_END': {
        const name = callNames.get(e.tool_call_id) ?? '?'
        ended.add(e.tool_call_id)
        tools[name] ??= {}
        tools[name][e.state] = (tools[name][e.state] ?? 0) + 1
        return
      }
      case 'REQUIRE_USER_CONFIRM':
      case 'REQUIRE_EXTERNAL_EXECUTION':
        if (reply) reply.end = 'paused'
        paused = { seq, reply_id: e.reply_id, kind: e.type === 'REQUIRE_USER_CONFIRM' ? 'confirm' : 'external', calls: e.tool_calls.map((c) => `${c.name} [${c.id}]`), outcome: 'waiting', outcome_seq: null }
        pauses.push(paused)
        return
      case 'USER_CONFIRM_RESULT':
      case 'EXTERNAL_EXECUTION_RESULT':
      case 'USER_INTERRUPT': {
        if (reply && reply.end === 'paused') reply.end = 'running'
        if (e.type === 'USER_INTERRUPT') interrupts.push({ seq, reply_id: e.reply_id, kind: 'user' })
        const outcome = e.type === 'USER_INTERRUPT' ? 'interrupted'
          : e.type === 'EXTERNAL_EXECUTION_RESULT' ? 'result given'
            : e.confirm_results.every((r) => r.confirmed) ? 'confirmed' : e.confirm_results.some((r) => r.confirmed) ? 'partly denied' : 'denied'
        for (const pause of pauses) if (pause.reply_id === e.reply_id && pause.outcome === 'waiting') Object.assign(pause, { outcome, outcome_seq: seq })
        return
      }
      case 'INTERRUPT_REQUESTED':
        interrupts.push({ seq, reply_id: e.reply_id, kind: 'cancel' })
    }
  })
  for (const [id, name] of callNames) {
    if (ended.has(id)) continue
    tools[name] ??= {}
    tools[name].open = (tools[name].open ?? 0) + 1
  }
  const results: Record<string, number> = {}
  for (const states of Object.values(tools)) for (const [state, n] of Object.entries(states)) results[state] = (results[state] ?? 0) + n
  const list = [...replies.values()].map(({ started_at: _, ...r }) => r)
  return { events: events.length, sessions: [...new Set(list.map((r) => r.session_id))], replies: list, usage, tools, results, pauses, interrupts }
}
