// The confirmations a thread's sub-agents wait for: the root's reply waits on a sub-agent call
// (`submitted`), whose sub-agent waits on its own asking calls, or on a sub-agent call of its own,
// and so on; and whether a sub-agent's log answered a call (a repeated resume changes nothing).
// Read from the sessions' states through the hub (lib/hub/waiting.ts), so a resume sent to any
// process of a hub finds them, not only one sent to the process that owns the root.
import type { Hub } from '../../hub/types.js'
import { replyTreeStates } from '../../hub/waiting.js'
import { waitingInTree } from '../../subagents/tree.js'
import type { AgentState } from '../../../reducers/state.js'
import { isAnsweredCall, type Descendants } from './fromAgUi.js'
import { interruptCall, type DescendantAsks } from './toAgUi.js'

/** What a resume of the thread `root_id` (whose state is `root`) needs to know of its sub-agents. */
export const descendantsOf = async (hub: Hub, root_id: string, root: AgentState): Promise<Descendants> => {
  // The parent link each sub-agent's session records (its tree's `parent`), so a call naming another tree's session is not followed.
  const states = await replyTreeStates((session_id) => hub.session(session_id).state(), async (session_id) => (await hub.session(session_id).tree()).parent, root_id, root)
  const byId = new Map(states.map(({ session_id, state }) => [session_id, state]))
  const bySession = new Map<string, DescendantAsks>()
  for (const { session_id, ...call } of waitingInTree(root_id, root, (id) => byId.get(id))) {
    const reply_id = session_id === root_id ? null : byId.get(session_id)?.reply_id
    if (!reply_id) continue
    const asks = bySession.get(session_id) ?? { session_id, reply_id, calls: [] }
    bySession.set(session_id, { ...asks, calls: [...asks.calls, call] })
  }
  // An interrupt of a sub-agent's call names its session: answered there (a repeated resume changes nothing).
  const answered = (id: string) => {
    const { session_id, call_id } = interruptCall(id)
    return states.slice(1).some((s) => (session_id === '' || s.session_id === session_id) && isAnsweredCall(s.state, call_id))
  }
  return { asks: [...bySession.values()], answered }
}
