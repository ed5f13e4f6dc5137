// The links between sessions of a tree (a sub-agent's REPLY_START `metadata.parent`, a sub-agent
// call's `metadata.child_session_id`, the `metadata.session_id` a descendants stream tags events
// with) are written by agentlog alone: input a caller sends that carries one is refused, and the
// agent tool hands its child's parent link and its calls' answers over with a key no JSON can hold.
import { AgentError } from '../core/errors.js'
import type { AgentEvent } from '../core/events.js'

/** The metadata keys that link sessions. */
export const LINK_KEYS = ['parent', 'child_session_id', 'session_id'] as const

/** Reply options' key for what only the tree sets: a sub-agent reply's parent link, or a tree's own answer that may carry links. */
export const TREE_LINKS: unique symbol = Symbol('agentlog.treeLinks')

export interface TreeLinks {
  /** The call a sub-agent's reply runs for (recorded on its REPLY_START as `metadata.parent`). */
  parent?: { session_id: string; reply_id: string; tool_call_id: string }
  /** An answer the tree gives itself (a parked sub-agent call's outcome names its child). */
  trusted?: true
}

export const treeLinksOf = (options: object): TreeLinks | undefined => (options as { [TREE_LINKS]?: TreeLinks })[TREE_LINKS]

const linkKeyOf = (metadata: unknown): string | undefined =>
  typeof metadata === 'object' && metadata !== null ? LINK_KEYS.find((key) => key in metadata) : undefined

/** The path of the first link key in input a caller sent (the event's metadata, its results' metadata), or null. */
export const linkInInput = (event: AgentEvent): string | null => {
  const own = linkKeyOf(event.metadata)
  if (own) return `metadata.${own}`
  if (event.type === 'USER_MESSAGE') {
    const key = linkKeyOf(event.msg.metadata)
    return key ? `msg.metadata.${key}` : null
  }
  if (event.type !== 'EXTERNAL_EXECUTION_RESULT') return null
  for (const [i, result] of event.execution_results.entries()) {
    const key = linkKeyOf(result.metadata)
    if (key) return `execution_results[${i}].metadata.${key}`
  }
  return null
}

/** Refuses input whose metadata would set a link between sessions (INVALID_INPUT). */
export const refuseLinks = (event: AgentEvent): void => {
  const path = linkInInput(event)
  if (path) throw new AgentError('INVALID_INPUT', `${path} links sessions of a tree, which only agentlog records (an agent tool's call and its sub-agent); use another key.`)
}
