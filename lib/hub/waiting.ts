// What a tree of sessions waits for, read from the sessions' states (the live agent's where this
// process holds the session, else folded from the store), so any process of a hub answers it, not
// only the owner of the root: the states of the reply's tree are read (`replyTreeStates`), then
// `waitingInTree` (lib/subagents/tree.ts, as for a live tree) reads them. A call's sub-agent is
// named in the parent's log (its TOOL_RESULT_START's `metadata.child_session_id`, kept on the
// result block of the reply's message), never in a copy that could go stale, and counts only if the
// sub-agent's session names that call back (linkedChild): another tree's session is not read.
import type { AgentState } from '../../reducers/state.js'
import { AgentError } from '../core/errors.js'
import { replyChildren, waitingInTree } from '../subagents/tree.js'
import { enterLink } from '../subagents/linkWalk.js'
import type { WaitingCall } from '../agent/text.js'
import { linkedChild, type ParentOf } from './linkedChild.js'

export { replyChildren }

/** A session's state by its id (NOT_FOUND for an unknown one). */
export type StateOf = (session_id: string) => Promise<AgentState>

/** The calls the tree under `session_id` waits for, each with the session it waits in (waitingInTree over the states read). */
export const storedTreeWaiting = async (stateOf: StateOf, parentOf: ParentOf, session_id: string, state?: AgentState): Promise<WaitingCall[]> => {
  const states = await replyTreeStates(stateOf, parentOf, session_id, state)
  const byId = new Map(states.map((s) => [s.session_id, s.state]))
  return waitingInTree(session_id, states[0].state, (id) => byId.get(id))
}

/** The states of the tree of `session_id`'s reply in progress (or last reply): the session's, then each sub-agent's below it, depth first. */
export const replyTreeStates = async (stateOf: StateOf, parentOf: ParentOf, session_id: string, state?: AgentState, seen = new Set<string>(), depth = 0): Promise<{ session_id: string; state: AgentState }[]> => {
  enterLink(seen, session_id, depth, 'Reading what a tree waits for')
  const own = state ?? (await stateOf(session_id))
  const child = async (call_id: string, child_id: string) =>
    (await linkedChild(parentOf, session_id, call_id, child_id)) ? replyTreeStates(stateOf, parentOf, child_id, undefined, seen, depth + 1) : []
  const below = await Promise.all([...replyChildren(own)].map(([call_id, child_id]) => child(call_id, child_id).catch(notFound)))
  return [{ session_id, state: own }, ...below.flat()]
}

/** A sub-agent session no longer stored (deleted), or another tree's, has nothing to add; any other failure is the caller's. */
const notFound = (error: unknown): [] => {
  if (error instanceof AgentError && error.code === 'NOT_FOUND') return []
  throw error
}
