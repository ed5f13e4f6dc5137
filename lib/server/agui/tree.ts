// The confirmations a thread's sub-agents wait for: the root's reply waits on a sub-agent call
// (`submitted`), whose sub-agent waits on its own asking calls, or on a sub-agent call of its own,
// and so on; and whether a sub-agent's log answered a call (a repeated resume changes nothing).
// Read from the live tree of the process that owns the root (the sub-agents run there); nothing
// when this process does not hold the root open.
import type { Agent } from '../../agent.js'
import type { Hub } from '../../hub/types.js'
import { findSession, treeWaitingFor } from '../../subagents/tree.js'
import { liveAgent } from '../tree.js'
import { isAnsweredCall, type Descendants } from './fromAgUi.js'
import type { DescendantAsks } from './toAgUi.js'

/** What a resume of the thread `root_id` needs to know of its sub-agents. */
export const descendantsOf = (hub: Hub, root_id: string): Descendants => {
  const root = liveAgent(hub, root_id)
  if (!root) return { asks: [], answered: () => false }
  return { asks: descendantAsks(root), answered: (id) => below(root).some((agent) => isAnsweredCall(agent.state, id)) }
}

/** Every sub-agent of the tree under `agent` (in this process). */
const below = (agent: Agent): Agent[] => agent.children().flatMap((child) => [child, ...below(child)])

const descendantAsks = (root: Agent): DescendantAsks[] => {
  const root_id = root.session_id
  const bySession = new Map<string, DescendantAsks>()
  for (const { session_id, ...call } of treeWaitingFor(root)) {
    if (session_id === root_id) continue
    const reply_id = findSession(root, session_id)?.state.reply_id
    if (!reply_id) continue
    const asks = bySession.get(session_id) ?? { session_id, reply_id, calls: [] }
    bySession.set(session_id, { ...asks, calls: [...asks.calls, call] })
  }
  return [...bySession.values()]
}
