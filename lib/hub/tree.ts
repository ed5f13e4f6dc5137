// A tree of sessions in a store, read from the links in the logs (no side table): a parent's
// TOOL_RESULT_START names the sub-agent session of its call (`metadata.child_session_id`), the
// sub-agent's session records its parent (`metadata.parent`). `sessionTree` returns the tree of a
// session; `subagentsOpenAt` the sub-agents a follow resuming at a seq must follow too
// (followTree.ts follows a tree). A child counts only if its session names the call back (linkedChild).
import { AgentError } from '../core/errors.js'
import type { AgentEvent } from '../core/events.js'
import { isParentLink, openReplyIn, startedSubagent, type ParentLink } from '../subagents/childLogs.js'
import type { OpenSubagent } from './followTree.js'
import { enterLink, MAX_TREE_DEPTH } from '../subagents/linkWalk.js'
import { linkedChild, storedParent } from './linkedChild.js'
import type { SessionStore, SessionTree } from './types.js'

export { startedSubagent, type SessionTree }

/** The sessions started by the calls of `session_id`, with the calls' reply and id, oldest first (reads its log). */
export const sessionChildren = async (store: SessionStore, session_id: string): Promise<(ParentLink & { child_session_id: string })[]> =>
  (await store.read(session_id)).flatMap((event) => {
    const child_session_id = startedSubagent(event)
    return child_session_id && event.type === 'TOOL_RESULT_START' ? [{ session_id, reply_id: event.reply_id, tool_call_id: event.tool_call_id, child_session_id }] : []
  })

/**
 * The sub-agent sessions of the reply in progress at `fromSeq` (started by its calls at or before
 * that seq), read from the log: followed from their start when a follow resumes there, even if the
 * reply has ended since.
 */
export const subagentsOpenAt = async (store: SessionStore, session_id: string, fromSeq: number): Promise<OpenSubagent[]> => {
  const upTo = (await store.read(session_id)).filter((event) => Number(event.metadata.seq) <= fromSeq)
  const ended = new Set(upTo.flatMap((event) => (event.type === 'REPLY_END' ? [event.reply_id] : [])))
  return upTo.flatMap((event) => {
    const child = startedSubagent(event)
    return child && event.type === 'TOOL_RESULT_START' && !ended.has(event.reply_id) ? [{ session_id: child, parent: session_id, tool_call_id: event.tool_call_id }] : []
  })
}

/** The tree under `session_id`: ids, parents, status, from the sessions' logs and infos. NOT_FOUND for an unknown session. */
export const sessionTree = async (store: SessionStore, session_id: string, seen = new Set<string>(), depth = 0): Promise<SessionTree> => {
  enterLink(seen, session_id, depth, 'Reading a tree of sessions')
  const info = await store.info(session_id)
  const children: SessionTree[] = []
  for (const { tool_call_id, child_session_id } of await sessionChildren(store, session_id)) {
    try {
      if (await linkedChild(storedParent(store), session_id, tool_call_id, child_session_id)) children.push(await sessionTree(store, child_session_id, seen, depth + 1))
    } catch (error) {
      if (!(error instanceof AgentError && error.code === 'NOT_FOUND')) throw error
    }
  }
  const parent = isParentLink(info.metadata.parent) ? info.metadata.parent : null
  return { session_id, status: info.status, parent, ...(info.title !== undefined && { title: info.title }), children }
}

/** The sub-agent sessions under `session_id`, deepest first, read from the logs (each once; a session no longer stored has none). */
export const subtreeIds = async (store: SessionStore, session_id: string, seen = new Set([session_id]), depth = 1): Promise<string[]> => {
  if (depth > MAX_TREE_DEPTH) return []
  const children = await sessionChildren(store, session_id).catch(() => [])
  const ids: string[] = []
  for (const { tool_call_id, child_session_id } of children) {
    if (seen.has(child_session_id) || !(await linkedChild(storedParent(store), session_id, tool_call_id, child_session_id).catch(() => false))) continue
    seen.add(child_session_id)
    ids.push(...(await subtreeIds(store, child_session_id, seen, depth + 1)), child_session_id)
  }
  return ids
}

/**
 * The parent session whose unfinished reply still waits on sub-agent `session_id` (a call it
 * started that has no result yet), or null: read from the two logs.
 */
export const waitingParent = async (store: SessionStore, session_id: string): Promise<string | null> => {
  const own = await store.read(session_id).catch(() => null)
  const start = own?.find((event) => event.type === 'REPLY_START' && isParentLink(event.metadata.parent))
  const parent = start && isParentLink(start.metadata.parent) ? start.metadata.parent.session_id : null
  if (parent === null || parent === session_id) return null
  const events = await store.read(parent).catch(() => null)
  return events && openReplyIn(events)?.children.includes(session_id) ? parent : null
}
