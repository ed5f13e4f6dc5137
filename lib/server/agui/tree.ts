// The confirmations a thread's sub-agents wait for: the root's reply waits on a sub-agent call
// (`submitted`), whose sub-agent waits on its own asking calls, or on a sub-agent call of its own,
// and so on. Read from the live tree of the process that owns the root (the sub-agents run there);
// nothing when this process does not hold the root open.
import type { Hub } from '../../hub/types.js'
import { findSession, treeWaitingFor } from '../../subagents/tree.js'
import { liveAgent } from '../tree.js'
import type { DescendantAsks } from './toAgUi.js'

export const descendantAsks = (hub: Hub, root_id: string): DescendantAsks[] => {
  const root = liveAgent(hub, root_id)
  if (!root) return []
  const bySession = new Map<string, DescendantAsks>()
  for (const { session_id, ...call } of treeWaitingFor(root)) {
    if (session_id === root_id || call.state !== 'asking') continue
    const reply_id = findSession(root, session_id)?.state.reply_id
    if (!reply_id) continue
    const asks = bySession.get(session_id) ?? { session_id, reply_id, calls: [] }
    bySession.set(session_id, { ...asks, calls: [...asks.calls, call] })
  }
  return [...bySession.values()]
}
