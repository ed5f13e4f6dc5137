// Where the sub-agents of a tree keep their logs. Outside a hub, in memory (or where agentTool's
// `log` option puts them); in a hub, as sessions of the hub's store, owned by the process that owns
// the root: the hub gives the root agent a `SubagentLogs` (AgentOptions.subagentLogs) and every
// agent of the tree passes it on. `openSubagentSessions` reads, from a log alone, which sub-agent
// sessions a restored reply will reopen, so a hub can open their logs before the agent is made.
import type { AgentEvent } from '../core/events.js'
import type { LogStore } from '../core/log.js'

/** The call a sub-agent runs, as its first REPLY_START records it (`metadata.parent`). */
export interface ParentLink {
  session_id: string
  reply_id: string
  tool_call_id: string
}

export interface SubagentLogs {
  /** A new sub-agent's log, opened for writing (in a hub: a new session of its store). */
  open(session_id: string, parent: ParentLink): Promise<LogStore>
  /** A sub-agent's existing log, reopened while its parent is restored (synchronously: a hub opens it beforehand), or null. */
  reopen(session_id: string): LogStore | null
}

/** The events of a log that can be read (a log opened from a snapshot: the ones after it). */
const readable = (log: LogStore): readonly AgentEvent[] => {
  try {
    return log.events
  } catch {
    const snapshot = log.snapshot?.()
    try {
      return snapshot ? log.read({ fromSeq: snapshot.seq }) : []
    } catch {
      return []
    }
  }
}

/**
 * The last reply of a log when it has not ended (running, or paused): its REPLY_START's
 * `metadata.parent` (a sub-agent's), and the sub-agent sessions of its calls that have no result
 * yet (TOOL_RESULT_START `metadata.child_session_id` without a TOOL_RESULT_END). Null for a log
 * whose last reply ended (or that has none). Reads the last reply's events only, from the end back.
 */
export const openReply = (log: LogStore): OpenReply | null => openReplyIn(readable(log))

/** An unfinished reply: the call it runs for (a sub-agent's), its open sub-agent sessions, and the call of each (`links`). */
export interface OpenReply {
  parent: ParentLink | null
  children: string[]
  links: { tool_call_id: string; child_session_id: string }[]
}

/** openReply over a log's events. */
export const openReplyIn = (events: readonly AgentEvent[]): OpenReply | null => {
  const ended = new Set<string>()
  const links: OpenReply['links'] = []
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]
    if (event.type === 'REPLY_END') return null
    if (event.type === 'TOOL_RESULT_END') ended.add(event.tool_call_id)
    const child = event.metadata.child_session_id
    if (event.type === 'TOOL_RESULT_START' && typeof child === 'string' && !ended.has(event.tool_call_id)) links.unshift({ tool_call_id: event.tool_call_id, child_session_id: child })
    if (event.type === 'REPLY_START')
      return { parent: isParentLink(event.metadata.parent) ? event.metadata.parent : null, children: links.map((l) => l.child_session_id), links }
  }
  return null
}

/** The sub-agent session a parent's event starts, if it is a sub-agent call's TOOL_RESULT_START (`metadata.child_session_id`). */
export const startedSubagent = (event: AgentEvent): string | undefined => {
  const id = event.type === 'TOOL_RESULT_START' ? event.metadata.child_session_id : undefined
  return typeof id === 'string' ? id : undefined
}

export const isParentLink = (value: unknown): value is ParentLink => {
  const link = value as Partial<ParentLink> | null
  return typeof link === 'object' && link !== null && typeof link.session_id === 'string' && typeof link.reply_id === 'string' && typeof link.tool_call_id === 'string'
}
