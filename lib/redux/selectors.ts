// Selectors over the slice's state (`store.getState().agents` under the default key). They return
// what the state holds (no copies, so a streamed delta costs a selector nothing and `useSelector`
// re-renders only when the session changed).
import type { Msg, ToolCallBlock } from '../core/messages.js'
import type { AgentState, ReplyStatus } from '../../reducers/state.js'
import type { AgentsState } from './slice.js'

/** The session's state (replay of its log), or undefined when it is not followed. */
export const selectSession = (slice: AgentsState, session_id: string): AgentState | undefined =>
  Object.hasOwn(slice.sessions, session_id) ? slice.sessions[session_id] : undefined

const ids = new WeakMap<AgentsState['sessions'], string[]>()

/** The followed sessions' ids, in the order they were followed (the same array while they are the same). */
export const selectSessionIds = (slice: AgentsState): string[] => {
  let known = ids.get(slice.sessions)
  if (!known) ids.set(slice.sessions, (known = Object.keys(slice.sessions)))
  return known
}

export const selectStatus = (slice: AgentsState, session_id: string): ReplyStatus | undefined => selectSession(slice, session_id)?.status

const none: ToolCallBlock[] = []

/** The calls the paused reply waits for (asking for a confirmation or an external result). */
export const selectWaitingFor = (slice: AgentsState, session_id: string): ToolCallBlock[] => selectSession(slice, session_id)?.waiting_for ?? none

/** The reply in progress (or paused), or null: render it after `session.context` (never a copy of the conversation). */
export const selectReplyMsg = (slice: AgentsState, session_id: string): Msg | null => selectSession(slice, session_id)?.reply_msg ?? null
