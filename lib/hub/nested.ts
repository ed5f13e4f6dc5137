// Sessions listed as a tree: a sub-agent session (one whose metadata names its `parent`, as the hub
// records when a sub-agent call creates it) comes right after its parent, one level deeper; a
// session whose parent is not in the list stays at the top, marked with its parent. The order
// within a level is the list's own (newest first). Pure: the page, the server and the command
// line share it.
import type { SessionInfo } from './types.js'

export interface SessionLink { session_id: string; reply_id: string; tool_call_id: string }

/** The parent a session's metadata names (a sub-agent's session), or null. */
export const parentOf = (info: Pick<SessionInfo, 'metadata'>): SessionLink | null => {
  const parent = info.metadata?.parent as Partial<SessionLink> | undefined
  return typeof parent === 'object' && parent !== null && typeof parent.session_id === 'string'
    ? { session_id: parent.session_id, reply_id: String(parent.reply_id ?? ''), tool_call_id: String(parent.tool_call_id ?? '') }
    : null
}

export interface NestedSession<T> { info: T; depth: number; parent: SessionLink | null }

/** `sessions` in tree order: each root, then its sub-agents (depth 1), theirs (depth 2), ... */
export const nestSessions = <T extends Pick<SessionInfo, 'session_id' | 'metadata'>>(sessions: readonly T[]): NestedSession<T>[] => {
  const present = new Set(sessions.map((s) => s.session_id))
  const children = new Map<string, T[]>()
  const roots: T[] = []
  for (const s of sessions) {
    const parent = parentOf(s)?.session_id
    if (parent !== undefined && parent !== s.session_id && present.has(parent)) {
      if (!children.has(parent)) children.set(parent, [])
      children.get(parent)!.push(s)
    } else roots.push(s)
  }
  const out: NestedSession<T>[] = []
  const visited = new Set<string>()
  const walk = (s: T, depth: number) => {
    if (visited.has(s.session_id)) return
    visited.add(s.session_id)
    out.push({ info: s, depth, parent: parentOf(s) })
    for (const child of children.get(s.session_id) ?? []) walk(child, depth + 1)
  }
  for (const root of roots) walk(root, 0)
  // Sessions caught in a circle of parents (only forged metadata makes one) are listed at the top.
  for (const s of sessions) if (!visited.has(s.session_id)) walk(s, 0)
  return out
}
