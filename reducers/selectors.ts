// Selectors: what effects and the agent read from the state, so that they never depend on the
// reducers' internals.
import type { Msg, ToolCallBlock } from '../lib/core/messages.js'
import { findToolResult, toolCallsFrom } from './blocks.js'
import { compactedView } from './compaction.js'
import { replyIdOf } from './conversation.js'
import type { AgentState } from './state.js'

export { findToolCall, findToolResult } from './blocks.js'

/** The reply can be advanced by the scheduler: running, no model call open, not being closed. */
export const isAdvanceable = (state: AgentState): boolean =>
  state.status === 'running' && !!state.loop && !state.loop.model_call_open && !state.loop.closing

/** The tool calls of the current round, in order, finished or not. */
export const selectRoundCalls = (state: AgentState): ToolCallBlock[] => {
  if (!state.loop || !state.reply_msg) return []
  return toolCallsFrom(state.reply_msg, state.loop.round_start)
}

/** The ids of the current round's results that are still running (one walk: what `isRunning` asks of each call). */
export const selectRunningResults = (state: AgentState): ReadonlySet<string> => {
  const running = new Set<string>()
  const content = state.reply_msg?.content ?? []
  for (let i = state.loop?.round_start ?? content.length; i < content.length; i++) {
    const block = content[i]
    if (block.type === 'tool_result' && block.state === 'running') running.add(block.id)
  }
  return running
}

/** A call that is running locally (its result started and is not closed). */
export const isRunning = (state: AgentState, call: ToolCallBlock): boolean =>
  call.state === 'allowed' && findToolResult(state.reply_msg, call.id)?.state === 'running'

export const isDeniedByUser = (state: AgentState, id: string): boolean => !!state.loop?.denied.includes(id)

/** The messages a model call is sent: the context, then the reply so far (after a compaction, its summary stands in for what it covers). */
export const selectConversation = (state: AgentState): Msg[] =>
  state.compaction ? compactedView(state, state.compaction)
    : state.reply_msg && state.reply_msg.content.length ? [...state.context, state.reply_msg] : state.context

export { selectCutPoints, selectHistory, selectKnownUsage, historyBetween, coveredSoFar, summaryMsg, type Position } from './compaction.js'

/**
 * The last ended reply's message (its continuation, when steers split it), if it is reply `reply_id`'s;
 * the messages a queue started after it are passed over.
 */
export const selectEndedReply = (state: AgentState, reply_id: string): Msg | undefined => {
  for (let i = state.context.length - 1; i >= 0; i--) {
    const msg = state.context[i]
    if (msg.role === 'assistant') return replyIdOf(msg) === reply_id ? msg : undefined
  }
  return undefined
}

export { replyIdOf } from './conversation.js'
export { queuedToStart, waitingMessages } from './talk.js'
