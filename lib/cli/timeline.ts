// The timeline of `agentlog replay`: one entry per event, except that a block's or a tool call's
// or a tool result's START / DELTA* / END group is one entry holding the whole text (placed where
// the group ends, or marked open at the cut), and MODEL_CALL_USAGE folds into its MODEL_CALL_END.
import type { AgentEvent } from '../core/events.js'
import { FORK_EVENT_NAME } from '../timeTravel/index.js'
import { args, mark, quote, speaker } from './render.js'

export interface Entry {
  from: number
  to: number
  text: string
  /** A group the log (or the cut) leaves unfinished. */
  open?: boolean
}

interface Group { from: number; to: number; deltas: number; head: string; text: string; render: (g: Group) => string }

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`
const deltas = (g: Group) => (g.deltas > 1 ? ` (${plural(g.deltas, 'delta')})` : '')
const seconds = (from: string, to: string) => `${((Date.parse(to) - Date.parse(from)) / 1000).toFixed(2)} s`

export const timeline = (events: readonly AgentEvent[]): Entry[] => {
  const entries: Entry[] = []
  const groups = new Map<string, Group>()
  const names = new Map<string, { name: string; input: string }>()
  const starts = new Map<string, string>()
  let modelCall = { open: 0, usage: '' }
  const open = (key: string, seq: number, head: string, render: Group['render']) => groups.set(key, { from: seq, to: seq, deltas: 0, head, text: '', render })
  const grow = (key: string, seq: number, text: string) => {
    const g = groups.get(key)
    if (!g) return
    g.text += text
    g.to = seq
    g.deltas++
  }
  const close = (key: string, seq: number, tail = '') => {
    const g = groups.get(key)
    if (!g) return
    groups.delete(key)
    entries.push({ from: g.from, to: seq, text: g.render(g) + tail })
  }
  const line = (seq: number, text: string) => entries.push({ from: seq, to: seq, text })

  events.forEach((e, i) => {
    const seq = i + 1
    switch (e.type) {
      case 'USER_MESSAGE':
        return line(seq, `${speaker(e.msg)}: ${quote(e.msg.content.map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join(''))}`)
      case 'REPLY_START':
        starts.set(e.reply_id, e.created_at)
        return line(seq, `reply ${e.reply_id} starts (${e.name}, session ${e.session_id})`)
      case 'REPLY_END': {
        const reason = e.finished_reason === 'completed' ? 'completed' : `[${e.finished_reason.toUpperCase()}]`
        const took = starts.has(e.reply_id) ? ` after ${seconds(starts.get(e.reply_id)!, e.created_at)}` : ''
        return line(seq, `reply ${e.reply_id} ends ${reason}${took}${e.error ? `: ${e.error.type}: ${quote(e.error.message)}` : ''}`)
      }
      case 'MODEL_CALL_START':
        modelCall = { open: seq, usage: '' }
        return line(seq, `model call (${e.model_name})`)
      case 'MODEL_CALL_USAGE':
        modelCall.usage = `: ${e.input_tokens} in / ${e.output_tokens} out tokens so far`
        return
      case 'MODEL_CALL_END':
        modelCall.open = 0
        return line(seq, `model call ends ${e.finished_reason === 'completed' ? 'completed' : '[INTERRUPTED]'}: ${e.input_tokens} in / ${e.output_tokens} out tokens`)
      case 'TEXT_BLOCK_START':
      case 'THINKING_BLOCK_START': {
        const kind = e.type === 'TEXT_BLOCK_START' ? 'text' : 'thinking'
        return void open(e.block_id, seq, kind, (g) => `${g.head} ${quote(g.text)}${deltas(g)}`)
      }
      case 'DATA_BLOCK_START':
        return void open(e.block_id, seq, `data ${e.media_type}`, (g) => `${g.head} (${g.text.length} base64 chars)${deltas(g)}`)
      case 'TEXT_BLOCK_DELTA':
      case 'THINKING_BLOCK_DELTA':
        return grow(e.block_id, seq, e.delta)
      case 'DATA_BLOCK_DELTA':
        return grow(e.block_id, seq, e.data)
      case 'TEXT_BLOCK_END':
      case 'THINKING_BLOCK_END':
      case 'DATA_BLOCK_END':
        return close(e.block_id, seq)
      case 'HINT_BLOCK':
      case 'HINT_ADDED':
        return line(seq, `hint ${quote(typeof e.hint === 'string' ? e.hint : e.hint.map((b) => (b.type === 'text' ? b.text : '[data]')).join(''))}`)
      case 'TOOL_CALL_START':
        return void open(`call:${e.tool_call_id}`, seq, e.tool_call_name, (g) => `tool call ${g.head}(${args(g.text)}) [${e.tool_call_id}]`)
      case 'TOOL_CALL_DELTA':
        return grow(`call:${e.tool_call_id}`, seq, e.delta)
      case 'TOOL_CALL_END': {
        const g = groups.get(`call:${e.tool_call_id}`)
        if (g) names.set(e.tool_call_id, { name: g.head, input: g.text })
        return close(`call:${e.tool_call_id}`, seq)
      }
      case 'TOOL_RESULT_START':
        return void open(`result:${e.tool_call_id}`, seq, e.tool_call_name, (g) => `result ${g.head} [${e.tool_call_id}]`)
      case 'TOOL_STARTED':
      case 'RUNS_DECIDED':
        return
      case 'TOOL_RESULT_TEXT_DELTA':
        return grow(`result:${e.tool_call_id}`, seq, e.delta)
      case 'TOOL_RESULT_DATA_DELTA':
        return grow(`result:${e.tool_call_id}`, seq, `[data ${e.media_type}]`)
      case 'TOOL_RESULT_END': {
        const key = `result:${e.tool_call_id}`
        if (!groups.has(key)) open(key, seq, names.get(e.tool_call_id)?.name ?? '?', (g) => `result ${g.head} [${e.tool_call_id}]`)
        const g = groups.get(key)!
        return close(key, seq, ` ${mark(e.state)} ${quote(g.text)}`)
      }
      case 'REQUIRE_USER_CONFIRM':
        return line(seq, `PAUSED: waiting for the user to confirm ${e.tool_calls.map((c) => `${c.name}(${args(c.input)}) [${c.id}]`).join(', ')}`)
      case 'REQUIRE_EXTERNAL_EXECUTION':
        return line(seq, `PAUSED: waiting for the external result of ${e.tool_calls.map((c) => `${c.name}(${args(c.input)}) [${c.id}]`).join(', ')}`)
      case 'USER_CONFIRM_RESULT':
        return line(seq, e.confirm_results.map((r) => {
          const asked = names.get(r.tool_call.id)
          const edited = asked && (asked.input !== r.tool_call.input || asked.name !== r.tool_call.name) ? ` edited to ${r.tool_call.name}(${args(r.tool_call.input)})` : ''
          const rules = r.rules?.length ? `, adding ${plural(r.rules.length, 'rule')}` : ''
          return r.confirmed ? `user confirms ${r.tool_call.name} [${r.tool_call.id}]${edited}${rules}` : `user [DENIES] ${r.tool_call.name} [${r.tool_call.id}]${rules}`
        }).join('; '))
      case 'EXTERNAL_EXECUTION_RESULT':
        return line(seq, `external results for ${e.execution_results.map((r) => `${r.name} [${r.id}] ${mark(r.state)}`).join(', ')}`)
      case 'EXCEED_MAX_ITERS':
        return line(seq, `[EXCEED_MAX_ITERS] ${e.name} reached its maximum iterations`)
      case 'USER_INTERRUPT':
        return line(seq, `[USER_INTERRUPT] of paused reply ${e.reply_id}`)
      case 'CONTEXT_COMPACTED':
        return line(seq, `context compacted (${e.model_name}): ${plural(e.covers.messages, 'message')}${e.covers.blocks ? ` and ${plural(e.covers.blocks, 'block')}` : ''} summarized as ${quote(e.summary)}`)
      case 'INTERRUPT_REQUESTED':
        return line(seq, `[INTERRUPT] requested for running reply ${e.reply_id}`)
      case 'CUSTOM':
        if (e.name === FORK_EVENT_NAME) return line(seq, `forked from session ${String(e.value.from_session_id)} at seq ${String(e.value.from_seq)}; new session ${String(e.value.session_id)}`)
        return line(seq, `custom ${e.name} ${JSON.stringify(e.value)}`)
    }
  })
  for (const g of groups.values()) entries.push({ from: g.from, to: g.to, text: `${g.render(g)} (open)`, open: true })
  if (modelCall.open) entries.push({ from: modelCall.open, to: events.length, text: `model call still open${modelCall.usage}`, open: true })
  return entries.sort((a, b) => a.to - b.to || a.from - b.from)
}
