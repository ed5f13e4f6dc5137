// Slice: `usage`, the token usage of the whole session, summed from every MODEL_CALL_END
// (an interrupted call's end carries the usage known so far, so nothing recorded is lost) and from
// every CONTEXT_COMPACTED (the summarizing call's usage).
import type { AgentEvent } from '../lib/core/events.js'
import { addUsage } from './conversation.js'
import type { AgentState } from './state.js'

export const usage = (state: AgentState, event: AgentEvent): AgentState =>
  (event.type === 'MODEL_CALL_END' && state.loop?.model_call_open && event.reply_id === state.reply_id) ||
  (event.type === 'CONTEXT_COMPACTED' && state.loop && !state.loop.model_call_open && event.reply_id === state.reply_id)
    ? { ...state, usage: addUsage(state.usage, event) }
    : state
