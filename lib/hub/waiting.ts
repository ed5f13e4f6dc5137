// What a tree of sessions waits for, read from the sessions' states (the live agent's where this
// process holds the session, else folded from the store), so any process of a hub answers it, not
// only the owner of the root: a paused sub-agent call stands for the calls its sub-agent session
// waits for (recursively), one whose sub-agent still runs for nothing yet. The call's sub-agent is
// named in the parent's log (its TOOL_RESULT_START's `metadata.child_session_id`, kept on the
// result block of the reply's message), never in a copy that could go stale.
import type { AgentState } from '../../reducers/state.js'
import { AgentError } from '../errors.js'
import type { WaitingCall } from '../text.js'

/** A session's state by its id (NOT_FOUND for an unknown one). */
export type StateOf = (session_id: string) => Promise<AgentState>

/** The sub-agent session of each call of the state's reply in progress (or its last reply), by call id. */
export const replyChildren = (state: AgentState): Map<string, string> => {
  // An ended reply's message is the last of the context (an interrupted reply with no output has none).
  const last = state.context[state.context.length - 1]
  const msg = state.reply_msg ?? (last?.id === state.reply_id ? last : null)
  const children = new Map<string, string>()
  for (const block of msg?.content ?? []) {
    const child = block.type === 'tool_result' ? block.metadata.child_session_id : undefined
    if (typeof child === 'string') children.set(block.id, child)
  }
  return children
}

/** The calls the tree under `session_id` waits for, each with the session it waits in (as `treeWaitingFor` for a live tree). */
export const storedTreeWaiting = async (stateOf: StateOf, session_id: string, state?: AgentState): Promise<WaitingCall[]> => {
  const own = state ?? (await stateOf(session_id))
  if (own.status !== 'paused') return []
  const children = replyChildren(own)
  const found: WaitingCall[] = []
  for (const call of own.waiting_for) {
    const child = children.get(call.id)
    if (child === undefined) found.push({ ...call, session_id })
    else found.push(...(await storedTreeWaiting(stateOf, child)))
  }
  return found
}

/** The states of the tree of `session_id`'s reply in progress (or last reply): the session's, then each sub-agent's below it, depth first. */
export const replyTreeStates = async (stateOf: StateOf, session_id: string, state?: AgentState): Promise<{ session_id: string; state: AgentState }[]> => {
  const own = state ?? (await stateOf(session_id))
  const below = await Promise.all([...replyChildren(own).values()].map((child) => replyTreeStates(stateOf, child).catch(notFound)))
  return [{ session_id, state: own }, ...below.flat()]
}

/** A sub-agent session no longer stored (deleted) has nothing to add; any other failure is the caller's. */
const notFound = (error: unknown): [] => {
  if (error instanceof AgentError && error.code === 'NOT_FOUND') return []
  throw error
}
