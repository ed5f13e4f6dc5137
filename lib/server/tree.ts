// A session's tree of sub-agents as the server sees it: `GET /sessions/:id/waiting` lists the calls
// the tree waits for (the session's own, or its sub-agents' at any depth, each with the
// `session_id` it waits in), so a page or client can answer them with the root's /input. Read from
// the sessions' logs through the hub (SessionHandle.waiting), so every process of a hub answers it.
import type { Hub } from '../hub/types.js'
import type { WaitingCall } from '../agent/text.js'

export const treeWaiting = async (hub: Hub, session_id: string): Promise<WaitingCall[]> => hub.session(session_id).waiting() // NOT_FOUND as a 404
