// A session's tree of sub-agents as the server sees it: `GET /sessions/:id/waiting` lists the calls
// the tree waits for (the session's own, or its sub-agents' at any depth, each with the
// `session_id` it waits in), so a page or client can answer them with the root's /input. The
// sub-agents run in the process that owns the root: there they are read from the live tree; a
// session this process does not hold open answers with its own waiting calls.
import type { Agent } from '../agent.js'
import type { Hub } from '../hub/types.js'
import { treeWaitingFor } from '../subagents/tree.js'
import type { WaitingCall } from '../text.js'

/** The agent of `session_id` when this process holds it open. */
export const liveAgent = (hub: Hub, session_id: string): Agent | undefined => {
  let found: Agent | undefined
  hub.onAgent?.((agent) => {
    if (agent.session_id === session_id) found = agent
  })?.()
  return found
}

export const treeWaiting = async (hub: Hub, session_id: string): Promise<WaitingCall[]> => {
  const state = await hub.session(session_id).state() // NOT_FOUND as a 404
  const root = liveAgent(hub, session_id)
  if (root) return treeWaitingFor(root)
  return state.status === 'paused' ? state.waiting_for.map((call) => ({ ...call, session_id })) : []
}
