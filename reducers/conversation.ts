// Slice: `context` and `reply_msg`, the messages and their blocks. One reply is one assistant
// message (id = reply_id) that receives every block of every iteration, and joins the context at
// REPLY_END. A state machine: a block event for an unknown or closed block, and a tool result for
// a call that is already finished (a late result after an interrupt), are ignored on purpose.
import type { AgentEvent, EventOf } from '../lib/core/events.js'
import type { DataBlock, Msg, TextBlock, ThinkingBlock, ToolCallBlock, ToolResultBlock, Usage } from '../lib/core/messages.js'
import { appendBlock, findBlockIndex, moveBlockToEnd, replaceBlock, setBlock } from './blocks.js'
import { compactBlock, withInput, withOutput, withReplyMsg, withText, withThinking } from './shapes.js'
import type { AgentState, LoopState } from './state.js'
import { recordStructuredOutput } from './structuredOutput.js'

const blockTypes = {
  TEXT_BLOCK_START: 'text', THINKING_BLOCK_START: 'thinking', TEXT_BLOCK_DELTA: 'text',
  THINKING_BLOCK_DELTA: 'thinking', TEXT_BLOCK_END: 'text', THINKING_BLOCK_END: 'thinking',
  DATA_BLOCK_END: 'data',
} as const

export const conversation = (state: AgentState, event: AgentEvent): AgentState => {
  const msg = state.reply_msg
  switch (event.type) {
    case 'USER_MESSAGE':
      return { ...state, context: [...state.context, event.msg] }
    case 'REPLY_START':
      return { ...state, reply_msg: newReplyMsg(event.reply_id, event.name, event.created_at) }
    case 'REPLY_END': {
      if (!msg || state.reply_id !== event.reply_id) return state
      // A reply cancelled before the model produced anything leaves no message (as AgentScope), nor does an empty continuation.
      const empty = msg.content.length === 0 && msg.usage === null
      if (empty && (event.finished_reason === 'interrupted' || msg.id !== event.reply_id)) return { ...state, reply_msg: null }
      const ended: Msg = { ...msg, finished_at: event.created_at, finished_reason: event.finished_reason, error: event.error }
      return { ...state, context: [...state.context, ended], reply_msg: null }
    }
    case 'STEER_JOINED':
      return msg && state.reply_id === event.reply_id ? joinSteers(state, msg, event) : state
    default:
      if (!msg || !('reply_id' in event) || event.reply_id !== state.reply_id) return state
      const next = reduceReplyMsg(msg, event, state.loop)
      return next === msg ? state : withReplyMsg(state, next)
  }
}

/** New blocks of the current model call (from `loop.round_start` on) are checked for duplicates. */
const reduceReplyMsg = (msg: Msg, event: AgentEvent, loop: LoopState | null): Msg => {
  const roundStart = loop?.round_start ?? 0
  switch (event.type) {
    case 'TEXT_BLOCK_START':
    case 'THINKING_BLOCK_START': {
      const type = blockTypes[event.type]
      if (findBlockIndex(msg, type, event.block_id, roundStart) >= 0) return msg
      const base = { id: event.block_id, created_at: event.created_at, finished_at: null }
      return appendBlock(msg, type === 'text' ? { type, text: '', ...base } : { type, thinking: '', ...base })
    }
    case 'TEXT_BLOCK_DELTA': {
      const index = findBlockIndex(msg, 'text', event.block_id)
      const block = msg.content[index] as TextBlock | undefined
      return block?.finished_at === null ? setBlock(msg, index, withText(block, block.text + event.delta)) : msg
    }
    case 'THINKING_BLOCK_DELTA': {
      const index = findBlockIndex(msg, 'thinking', event.block_id)
      const block = msg.content[index] as ThinkingBlock | undefined
      return block?.finished_at === null ? setBlock(msg, index, withThinking(block, block.thinking + event.delta)) : msg
    }
    case 'TEXT_BLOCK_END':
    case 'THINKING_BLOCK_END':
    case 'DATA_BLOCK_END': {
      const signature = event.type === 'THINKING_BLOCK_END' ? event.metadata.signature : undefined
      return replaceBlock(msg, findBlockIndex(msg, blockTypes[event.type], event.block_id), (b) => {
        if (b.finished_at !== null) return b
        compactBlock(b)
        return typeof signature === 'string' ? { ...b, signature, finished_at: event.created_at } : { ...b, finished_at: event.created_at }
      })
    }
    case 'DATA_BLOCK_START':
      if (findBlockIndex(msg, 'data', event.block_id, roundStart) >= 0) return msg
      return appendBlock(msg, {
        type: 'data', id: event.block_id, name: null, source: { type: 'base64', data: '', media_type: event.media_type },
        created_at: event.created_at, finished_at: null,
      })
    case 'DATA_BLOCK_DELTA':
      return replaceBlock(msg, findBlockIndex(msg, 'data', event.block_id), (b: DataBlock) =>
        b.finished_at !== null || b.source.type !== 'base64' ? b : { ...b, source: { ...b.source, data: b.source.data + event.data, media_type: event.media_type } })
    case 'HINT_BLOCK':
    case 'HINT_ADDED':
      if (findBlockIndex(msg, 'hint', event.block_id, roundStart) >= 0) return msg
      return appendBlock(msg, { type: 'hint', id: event.block_id, hint: event.hint, source: event.source, created_at: event.created_at, finished_at: event.created_at })
    case 'MODEL_CALL_END':
      // Usage never reported by a call cut short stays unknown (null), not zero.
      if (event.finished_reason === 'interrupted' && loop?.model_call_open && loop.model_call_usage === null) return msg
      return { ...msg, usage: addUsage(msg.usage, event) }
    case 'TOOL_CALL_START':
      if (findBlockIndex(msg, 'tool_call', event.tool_call_id, roundStart) >= 0) return msg
      return appendBlock(msg, {
        type: 'tool_call', id: event.tool_call_id, name: event.tool_call_name, input: '', state: 'pending',
        suggested_rules: [], created_at: event.created_at, finished_at: null,
      })
    case 'TOOL_CALL_DELTA':
      return updateCall(msg, event.tool_call_id, (c) => c.finished_at === null ? withInput(c, c.input + event.delta) : c)
    case 'TOOL_CALL_END':
      return updateCall(msg, event.tool_call_id, (c) => c.finished_at === null ? (compactBlock(c), { ...c, finished_at: event.created_at }) : c)
    case 'REQUIRE_USER_CONFIRM':
      return event.tool_calls.reduce((m, asked) => updateCall(m, asked.id, (c) => c.state !== 'pending' ? c
        : asked.suggested_rules ? { ...c, state: 'asking', suggested_rules: asked.suggested_rules } : { ...c, state: 'asking' }), msg)
    case 'REQUIRE_EXTERNAL_EXECUTION':
      return event.tool_calls.reduce((m, sent) => updateCall(m, sent.id, (c) => c.state === 'allowed' ? { ...c, state: 'submitted' } : c), msg)
    case 'USER_CONFIRM_RESULT':
      return event.confirm_results.reduce((m, { confirmed, tool_call }) => !confirmed ? m
        : updateCall(m, tool_call.id, (c) => c.state === 'asking' ? { ...c, name: tool_call.name, input: tool_call.input, state: confirmedState(c, tool_call.name) } : c), msg)
    case 'TOOL_RESULT_START': {
      const callIndex = findBlockIndex(msg, 'tool_call', event.tool_call_id)
      const call = msg.content[callIndex] as ToolCallBlock | undefined
      if (!call || call.state === 'finished' || call.state === 'submitted' || findBlockIndex(msg, 'tool_result', event.tool_call_id, callIndex) >= 0) return msg
      // The start's metadata (a sub-agent call's child_session_id) until the end's replaces it.
      const { seq: _seq, ...metadata } = event.metadata
      const withResult = appendBlock(msg, {
        type: 'tool_result', id: event.tool_call_id, name: event.tool_call_name, output: '', state: 'running', metadata,
        created_at: event.created_at, finished_at: null,
      })
      return call.state === 'allowed' ? withResult : updateCall(withResult, call.id, (c) => ({ ...c, state: 'allowed' }))
    }
    // Output recorded as blocks from here on: a tool the agent runs, an external result given as blocks.
    case 'TOOL_STARTED':
      return updateResult(msg, event.tool_call_id, (r) => r.output === '' ? withOutput(r, []) : r)
    case 'EXTERNAL_EXECUTION_RESULT':
      return event.execution_results.reduce((m, given) => typeof given.output === 'string' ? m
        : updateResult(m, given.id, (r) => r.output === '' ? withOutput(r, []) : r), msg)
    case 'TOOL_RESULT_TEXT_DELTA':
      return updateResult(msg, event.tool_call_id, (r) => withOutput(r, appendText(r.output, event.delta, event.id, event.created_at)))
    case 'TOOL_RESULT_DATA_DELTA':
      return updateResult(msg, event.tool_call_id, (r) => ({
        ...r,
        output: [...asBlocks(r.output, event.id, event.created_at), {
          type: 'data', id: event.block_id, name: null, created_at: event.created_at, finished_at: event.created_at,
          source: event.data !== null ? { type: 'base64', data: event.data, media_type: event.media_type } : { type: 'url', url: event.url ?? '', media_type: event.media_type },
        }],
      }))
    case 'TOOL_RESULT_END': {
      const { seq: _seq, ...metadata } = event.metadata
      const closed = updateResult(msg, event.tool_call_id, (r) => (compactBlock(r), { ...r, state: event.state, metadata, finished_at: event.created_at }))
      if (closed === msg) return msg
      // Results stand in the order they completed in, as AgentScope adds them (a result still running moves behind).
      const ended = moveBlockToEnd(closed, findBlockIndex(closed, 'tool_result', event.tool_call_id))
      return recordStructuredOutput(updateCall(ended, event.tool_call_id, (c) => ({ ...c, state: 'finished' })), event)
    }
    default:
      return msg
  }
}

/**
 * Steers join the context at a step boundary (issue 30): the reply's message so far (when it has
 * output) goes in first, then the steers as user messages; the reply goes on in a continuation
 * message (`metadata.reply_id` names the reply), so the next model request reads them after the results.
 */
const joinSteers = (state: AgentState, msg: Msg, event: EventOf<'STEER_JOINED'>): AgentState => {
  const ids = new Set(event.msg_ids)
  const steers = state.steers.filter((e) => ids.has(e.id)).map((e) => e.msg)
  if (msg.content.length === 0 && msg.usage === null) return { ...state, context: [...state.context, ...steers] }
  const part: Msg = { ...msg, finished_at: event.created_at }
  const continuation = newReplyMsg(event.continuation_id, msg.name, event.created_at, { reply_id: event.reply_id })
  return { ...state, context: [...state.context, part, ...steers], reply_msg: continuation }
}

/** The reply a message of the context belongs to: its own id, or the reply a continuation names. */
export const replyIdOf = (msg: Msg): string => (typeof msg.metadata.reply_id === 'string' ? msg.metadata.reply_id : msg.id)

const newReplyMsg = (id: string, name: string, created_at: string, metadata: Record<string, unknown> = {}): Msg => ({
  id, name, role: 'assistant', content: [], metadata, created_at,
  usage: null, finished_at: null, finished_reason: null, structured_output: null, error: null,
})

/** A confirmed call runs; one its confirmation renamed is checked again like a fresh call (pending). */
const confirmedState = (call: ToolCallBlock, name: string): ToolCallBlock['state'] => (name === call.name ? 'allowed' : 'pending')

const updateCall = (msg: Msg, id: string, update: (call: ToolCallBlock) => ToolCallBlock): Msg =>
  replaceBlock(msg, findBlockIndex(msg, 'tool_call', id), update)

/** Updates a result that is still running; a result for a closed call is dropped here. */
const updateResult = (msg: Msg, id: string, update: (result: ToolResultBlock) => ToolResultBlock): Msg =>
  replaceBlock(msg, findBlockIndex(msg, 'tool_result', id), (r: ToolResultBlock) => r.state === 'running' ? update(r) : r)

type Output = ToolResultBlock['output']
const asBlocks = (output: Output, id: string, created_at: string): Exclude<Output, string> =>
  typeof output !== 'string' ? output : output === '' ? [] : [{ type: 'text', id: `${id}-text`, text: output, created_at, finished_at: created_at }]

const appendText = (output: Output, delta: string, id: string, created_at: string): Output => {
  if (typeof output === 'string') return output + delta
  const last = output[output.length - 1]
  if (last?.type === 'text') return [...output.slice(0, -1), { ...last, text: last.text + delta }]
  return [...output, { type: 'text', id, text: delta, created_at, finished_at: created_at }]
}

const addUsage = (total: Usage | null, add: Usage): Usage => ({
  input_tokens: (total?.input_tokens ?? 0) + add.input_tokens,
  output_tokens: (total?.output_tokens ?? 0) + add.output_tokens,
  cache_input_tokens: (total?.cache_input_tokens ?? 0) + add.cache_input_tokens,
  cache_creation_input_tokens: (total?.cache_creation_input_tokens ?? 0) + add.cache_creation_input_tokens,
})
export { addUsage }
