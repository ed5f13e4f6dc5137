// Slice: `compaction`, the summary that stands in for the older part of the conversation in what
// the model is sent (the full history stays in `context`). CONTEXT_COMPACTED, recorded during a
// reply between model calls, carries the summary and the position it covers: the first `messages`
// messages of the history (the context, then the reply in progress) and the first `blocks` blocks of
// the next one. Only a cut point later than the current one is accepted (a tool call and its result
// are never split); any other position is ignored on purpose. Cold path: once per compaction.
import type { AgentEvent } from '../lib/core/events.js'
import type { Msg } from '../lib/core/messages.js'
import { copyState } from './shapes.js'
import type { AgentState, Compaction } from './state.js'

export interface Position { messages: number; blocks: number }

export const compaction = (state: AgentState, event: AgentEvent): AgentState => {
  if (event.type !== 'CONTEXT_COMPACTED' || event.reply_id !== state.reply_id || !state.loop || state.loop.model_call_open) return state
  if (!isCutPoint(selectHistory(state), event.covers) || !isAfter(event.covers, coveredSoFar(state))) return state
  const next = copyState(state)
  next.compaction = { id: event.id, created_at: event.created_at, summary: event.summary, ...event.covers }
  return next
}

/** Everything said so far: the context, then the reply in progress (once it has a block). */
export const selectHistory = (state: AgentState): Msg[] => (state.reply_msg?.content.length ? [...state.context, state.reply_msg] : state.context)

export const coveredSoFar = (state: AgentState): Position =>
  state.compaction ? { messages: state.compaction.messages, blocks: state.compaction.blocks } : { messages: 0, blocks: 0 }

const isAfter = (a: Position, b: Position): boolean => a.messages > b.messages || (a.messages === b.messages && a.blocks > b.blocks)

/**
 * A position the history can be cut at, leaving something after it: before a message, or where a
 * round of a reply starts (every tool call before the cut has its result before the cut).
 */
export const isCutPoint = (history: Msg[], { messages, blocks }: Position): boolean => {
  const msg = history[messages]
  if (!msg || messages < 0 || blocks < 0 || blocks >= Math.max(1, msg.content.length)) return false
  return blocks === 0 ? messages > 0 : closedAt(msg).has(blocks)
}

/** The block indexes inside `msg` where a round starts (a model call's output after the previous round's results): they split no tool call from its result. */
const closedAt = (msg: Msg): Set<number> => {
  const points = new Set<number>()
  const open = new Set<string>()
  const after = new Set(['tool_result', 'hint'])
  msg.content.forEach((block, i) => {
    if (i > 0 && open.size === 0 && !after.has(block.type) && after.has(msg.content[i - 1].type)) points.add(i)
    if (block.type === 'tool_call') open.add(block.id)
    else if (block.type === 'tool_result') open.delete(block.id)
  })
  return points
}

/** Every cut point after the current one, in order. */
export const selectCutPoints = (state: AgentState): Position[] => {
  const history = selectHistory(state)
  const from = coveredSoFar(state)
  const points: Position[] = []
  for (let m = from.messages; m < history.length; m++) {
    if (m > from.messages) points.push({ messages: m, blocks: 0 })
    for (const b of closedAt(history[m])) if (m > from.messages || b > from.blocks) points.push({ messages: m, blocks: b })
  }
  return points
}

/** The messages between two positions of the history (a message cut in two keeps only its part). */
export const historyBetween = (history: Msg[], from: Position, to: Position): Msg[] => {
  const out: Msg[] = []
  for (let m = from.messages; m < history.length && m <= to.messages; m++) {
    const msg = history[m]
    const start = m === from.messages ? from.blocks : 0
    const end = m === to.messages ? to.blocks : msg.content.length
    if (end <= start) continue
    out.push(start === 0 && end === msg.content.length ? msg : { ...msg, content: msg.content.slice(start, end) })
  }
  return out
}

/** The summary as the message the model is sent first (after the system prompt). */
export const summaryMsg = (c: Compaction): Msg => ({
  id: c.id, name: 'summary', role: 'user', metadata: {}, created_at: c.created_at,
  content: [{ type: 'text', id: `${c.id}-summary`, text: `Summary of the earlier conversation:\n\n${c.summary}`, created_at: c.created_at, finished_at: c.created_at }],
  usage: null, finished_at: c.created_at, finished_reason: null, structured_output: null, error: null,
})

/** What the model sees: the summary, then the history after the position it covers. */
export const compactedView = (state: AgentState, c: Compaction): Msg[] => {
  const history = selectHistory(state)
  return [summaryMsg(c), ...historyBetween(history, c, { messages: history.length, blocks: 0 })]
}

/** The reported usage of the reply's latest model call and the blocks recorded after its output, or null when none is known. */
export const selectKnownUsage = (state: AgentState): { tokens: number; since: Msg['content'] } | null => {
  const loop = state.loop
  const u = loop?.model_call_usage
  if (!loop || !u || !state.reply_msg) return null
  const tokens = u.input_tokens + u.cache_input_tokens + u.cache_creation_input_tokens + u.output_tokens
  if (u.input_tokens === 0) return null
  return { tokens, since: state.reply_msg.content.slice(loop.round_start).filter((b) => b.type === 'tool_result' || b.type === 'hint') }
}
