// Every walk over the links between sessions (a parent's walk up, a tree's states, sessionTree,
// followTree, fork, waiting) meets each session once and goes no deeper than MAX_TREE_DEPTH: a log
// crafted or imported with a link to itself, a cycle, or an endless chain is refused with a coded
// INVALID_LOG error instead of looping; and a child counts only if its parent link points back to
// the call that names it (`pointsBack`): a call naming another tree's session has no sub-agent.
import { AgentError } from '../core/errors.js'

/** Deeper than any agent tool's maxDepth can make: a chain of links past it is a crafted log. */
export const MAX_TREE_DEPTH = 64

/** Marks `session_id` met on the walk `seen` at `depth` (0: where it started); INVALID_LOG for a session met before or a walk too deep. */
export const enterLink = (seen: Set<string>, session_id: string, depth: number, what: string): void => {
  if (seen.has(session_id))
    throw new AgentError('INVALID_LOG', `${what}: session ${session_id} is linked to twice in one tree (a cycle of parent / child_session_id links); a log that links its sessions so was not made by agentlog.`)
  if (depth > MAX_TREE_DEPTH)
    throw new AgentError('INVALID_LOG', `${what}: the links between sessions go deeper than ${MAX_TREE_DEPTH} levels at session ${session_id}; a log that links its sessions so was not made by agentlog.`)
  seen.add(session_id)
}

/** True when a sub-agent's parent link (`metadata.parent`) names the call `tool_call_id` of session `parent_id`, the call that names it as its child. */
export const pointsBack = (link: unknown, parent_id: string, tool_call_id: string): boolean => {
  const parent = link as { session_id?: unknown; tool_call_id?: unknown } | null | undefined
  return typeof parent === 'object' && parent !== null && parent.session_id === parent_id && parent.tool_call_id === tool_call_id
}
