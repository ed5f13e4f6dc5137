// Sub-agents in a hub: every sub-agent a session's tree starts is a session of the hub's store
// (created with `metadata.parent`), opened by the process that owns the root and held with it until
// its reply has ended. The root's agent gets a SubagentLogs that creates and opens them
// (AgentOptions.subagentLogs); reopening a root restores its tree: the logs of the sub-agents its
// unfinished reply waits for are opened first (revival is synchronous), deepest last. A command for a sub-agent's session goes to the
// sub-agent agent inside its root's live session, here or routed to the root's owner.
import type { LogStore } from '../core/log.js'
import type { AgentEvent } from '../core/events.js'
import { AgentError } from '../core/errors.js'
import { isParentLink, openReply, openReplyIn, type OpenReply, type ParentLink, type SubagentLogs } from '../subagents/childLogs.js'
import { enterLink } from '../subagents/linkWalk.js'
import { findSession } from '../subagents/tree.js'
import { linkedChild, storedParent } from './linkedChild.js'
import type { LiveSession } from './live.js'
import type { SessionStore } from './types.js'

/**
 * Opens the logs of the sub-agent sessions of the open calls `links` of session `parent_id` and of
 * theirs, recursively, until a reply ended; closes them all if one fails. A session that does not
 * name its call back (linkedChild: another tree's) is not opened, as a missing one.
 */
export const openTreeLogs = async (store: SessionStore, root_id: string, links: OpenReply['links'], parent_id = root_id, opened = new Map<string, LogStore>(), seen = new Set([root_id]), depth = 1): Promise<Map<string, LogStore>> => {
  try {
    for (const { tool_call_id, child_session_id: id } of links) {
      enterLink(seen, id, depth, `Opening the tree of session ${root_id}`)
      // A sub-agent session that is gone (deleted, or never created: its owner died between the
      // call's start and the session's creation) is not opened: its parent closes the call as cut.
      const log = await linkedChild(storedParent(store), parent_id, tool_call_id, id).then((linked) => (linked ? store.open(id) : null)).catch((error: unknown) => {
        if (error instanceof AgentError && error.code === 'NOT_FOUND') return null
        throw error
      })
      if (!log) continue
      opened.set(id, log)
      await openTreeLogs(store, root_id, openReply(log)?.links ?? [], id, opened, seen, depth + 1)
    }
    return opened
  } catch (error) {
    await closeAll(opened)
    throw error
  }
}

export const closeAll = async (logs: Map<string, LogStore>): Promise<void> => {
  await Promise.allSettled([...logs.values()].map((log) => log.close()))
  logs.clear()
}

/** The position of a log's last event (a log opened from a snapshot may hold only the events after it). */
const endOf = (log: LogStore): number => {
  try {
    return log.events.length
  } catch {
    return log.snapshot?.()?.seq ?? 0
  }
}

/** The sub-agent sessions held by the live roots of one hub (each until its reply has ended). */
export class SubagentSessions {
  /** Sub-agent session id -> the session id of its tree's root. */
  private readonly rootOf = new Map<string, string>()

  /** `started`: a new sub-agent session is held here (its agent linked once this turn is over). */
  constructor(private readonly store: SessionStore, private readonly live: (session_id: string) => LiveSession | undefined, private readonly started: (session_id: string) => void) {}

  /** The SubagentLogs of root session `root_id`, whose sub-agent logs go to `children`; `reopened` holds those opened beforehand. */
  logsFor(root_id: string, children: Map<string, LogStore>, reopened: Map<string, LogStore>): SubagentLogs {
    const adopt = (session_id: string, log: LogStore) => {
      children.set(session_id, log)
      this.rootOf.set(session_id, root_id)
      // Once the sub-agent's reply has ended, its session is let go (its log closed, its lease
      // released): a long-lived root holds only its running and parked sub-agents, not every one it ran.
      const letGo = () => setTimeout(() => {
        if (children.get(session_id) !== log) return
        children.delete(session_id)
        this.rootOf.delete(session_id)
        void log.close().catch(() => undefined)
      }, 0)
      if (openReply(log) === null && endOf(log) > 0) letGo()
      else {
        const watch = log.follow({ fromSeq: endOf(log) }).subscribe({
          next: (event) => {
            if (event.type !== 'REPLY_END') return
            queueMicrotask(() => watch.unsubscribe())
            letGo()
          },
          error: () => undefined,
        })
      }
      return log
    }
    return {
      open: async (session_id, parent) => {
        await this.store.create({ session_id, metadata: { parent } })
        const log = adopt(session_id, await this.store.open(session_id))
        setTimeout(() => this.started(session_id), 0)
        return log
      },
      reopen: (session_id) => {
        const log = reopened.get(session_id)
        if (!log) return null
        reopened.delete(session_id)
        return adopt(session_id, log)
      },
    }
  }

  /** A sub-agent's session held here with its live root, as a session of its own (used through its root). */
  get(session_id: string): LiveSession | undefined {
    const root_id = this.rootOf.get(session_id)
    const root = root_id === undefined ? undefined : this.live(root_id)
    const log = root?.children.get(session_id)
    const agent = root && log ? findSession(root.agent, session_id) : undefined
    if (!root || !log || !agent || agent.failure) return undefined
    return { session_id, agent, log, users: 0, lastUsed: root.lastUsed, failed: root.failed, unwatch: () => {}, children: new Map(), root }
  }

  /** The sub-agent sessions held here. */
  ids(): string[] {
    return [...this.rootOf.keys()].filter((id) => this.get(id))
  }

  /** The root `root` was closed: its sub-agents' sessions with it. */
  forget(root: LiveSession): void {
    for (const id of root.children.keys()) this.rootOf.delete(id)
  }
}

/**
 * Checks the walk up from sub-agent `session_id` through the parents its logs name (each
 * unfinished reply's REPLY_START `metadata.parent`), read without opening them: INVALID_LOG for a
 * session that is its own ancestor or a chain deeper than any tree (a crafted or imported log).
 */
export const checkAncestry = async (store: SessionStore, session_id: string, parent: string): Promise<void> => {
  const seen = new Set<string>()
  enterLink(seen, session_id, 0, `Opening session ${session_id}`)
  let next: string | null = parent
  for (let depth = 1; next !== null; depth++) {
    enterLink(seen, next, depth, `Opening session ${session_id}`)
    const events: AgentEvent[] | null = await store.read(next).catch(() => null)
    next = events ? openReplyIn(events)?.parent?.session_id ?? null : null
  }
}

/** The call a sub-agent's session ran for (its first REPLY_START's `metadata.parent`, or its session's), or null for a root. */
export const parentOf = (events: readonly AgentEvent[], metadata: Record<string, unknown>): ParentLink | null => {
  if (isParentLink(metadata.parent)) return metadata.parent
  const start = events.find((event) => event.type === 'REPLY_START')
  return start && isParentLink(start.metadata.parent) ? start.metadata.parent : null
}

/** Refuses input to a sub-agent's session opened outside its tree (a Stop goes through): its tree's root takes messages. */
export const refuseDetached = (session: { session_id: string; detached?: { session_id: string; tool_call_id: string } }): void => {
  if (!session.detached) return
  const { session_id: parent, tool_call_id } = session.detached
  throw new AgentError('INVALID_INPUT', `Session ${session.session_id} is a sub-agent of session ${parent} (its call ${tool_call_id}), and that call no longer waits on it: it takes no new message or answer on its own. Talk to the root of its tree (session ${parent}, or that session's root) instead.`, { parent })
}
