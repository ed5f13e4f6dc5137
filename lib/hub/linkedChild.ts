// A sub-agent link is trusted only when both logs say it: the parent's call names the sub-agent's
// session (TOOL_RESULT_START `metadata.child_session_id`) and that session names the call back (its
// `metadata.parent`, or its first REPLY_START's). A call that names a session of another tree (a
// crafted or imported log) has no sub-agent here: every walk over stored links treats it as missing.
import { isParentLink, type ParentLink } from '../subagents/childLogs.js'
import { pointsBack } from '../subagents/linkWalk.js'
import type { SessionStore } from './types.js'

/** The call a stored session ran for as a sub-agent, or null for a root; NOT_FOUND for an unknown session. */
export type ParentOf = (session_id: string) => Promise<ParentLink | null>

/** ParentOf read from a store: the session's `metadata.parent`, else its first REPLY_START's (an imported tree). */
export const storedParent = (store: Pick<SessionStore, 'info' | 'read'>): ParentOf => async (session_id) => {
  const { metadata } = await store.info(session_id)
  if (isParentLink(metadata.parent)) return metadata.parent
  const start = (await store.read(session_id)).find((event) => event.type === 'REPLY_START')
  return start && isParentLink(start.metadata.parent) ? start.metadata.parent : null
}

/**
 * True when session `child_id` is the sub-agent of call `tool_call_id` of session `parent_id` (its
 * parent link points back to that call); false when it belongs elsewhere. Rejects NOT_FOUND for a
 * session not stored, which each walk treats as it treats a deleted sub-agent.
 */
export const linkedChild = async (parentOfSession: ParentOf, parent_id: string, tool_call_id: string, child_id: string): Promise<boolean> => {
  return pointsBack(await parentOfSession(child_id), parent_id, tool_call_id)
}
