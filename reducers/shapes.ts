// Copies of the state and of messages written out field by field. On the streaming path every
// event copies the state, the reply message and one block; an object literal with every field
// named keeps one hidden class and is about ten times cheaper than `{ ...object }` (measured in
// bench/: spread 0.3 µs, literal 0.03 µs for the 11-field state).
import type { Block, Msg, TextBlock, ThinkingBlock, ToolCallBlock, ToolResultBlock } from '../lib/core/messages.js'
import type { AgentState } from './state.js'

export const copyState = (s: AgentState): AgentState => ({
  seq: s.seq, session_id: s.session_id, reply_id: s.reply_id, status: s.status, cur_iter: s.cur_iter,
  context: s.context, reply_msg: s.reply_msg, waiting_for: s.waiting_for, usage: s.usage,
  permission_rules: s.permission_rules, loop: s.loop, compaction: s.compaction, queue: s.queue, steers: s.steers,
})

export const withReplyMsg = (s: AgentState, reply_msg: Msg | null): AgentState => {
  const next = copyState(s)
  next.reply_msg = reply_msg
  return next
}

export const withContent = (m: Msg, content: Msg['content']): Msg => ({
  id: m.id, name: m.name, role: m.role, content, metadata: m.metadata, created_at: m.created_at,
  usage: m.usage, finished_at: m.finished_at, finished_reason: m.finished_reason,
  structured_output: m.structured_output, error: m.error,
})

export const withText = (b: TextBlock, text: string): TextBlock =>
  ({ type: 'text', id: b.id, text, created_at: b.created_at, finished_at: b.finished_at })

/** Thinking blocks may carry provider extras (a signature); those keep the general copy. */
export const withThinking = (b: ThinkingBlock, thinking: string): ThinkingBlock =>
  Object.keys(b).length === 5 ? { type: 'thinking', id: b.id, thinking, created_at: b.created_at, finished_at: b.finished_at } : { ...b, thinking }

export const withInput = (c: ToolCallBlock, input: string): ToolCallBlock =>
  c.suggested_rules === undefined
    ? { type: 'tool_call', id: c.id, name: c.name, input, state: c.state, created_at: c.created_at, finished_at: c.finished_at }
    : { type: 'tool_call', id: c.id, name: c.name, input, state: c.state, suggested_rules: c.suggested_rules, created_at: c.created_at, finished_at: c.finished_at }

export const withOutput = (r: ToolResultBlock, output: ToolResultBlock['output']): ToolResultBlock => ({
  type: 'tool_result', id: r.id, name: r.name, output, state: r.state, metadata: r.metadata, created_at: r.created_at, finished_at: r.finished_at,
})

/**
 * Text built by many appends is a tree of pieces in V8 (a 32-byte node per delta) until something
 * reads it whole; reading one character flattens it into one string. Called once when a block
 * closes, so that a finished block holds its characters only. The value itself does not change.
 */
export const compact = (text: string): void => void text.charCodeAt(0)

export const compactBlock = (b: Block): void => {
  if (b.type === 'text') compact(b.text)
  else if (b.type === 'thinking') compact(b.thinking)
  else if (b.type === 'tool_call') compact(b.input)
  else if (b.type === 'tool_result' && typeof b.output === 'string') compact(b.output)
}
