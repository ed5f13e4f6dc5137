// A tree of sessions in a store, read from the links in the logs (no side table): a parent's
// TOOL_RESULT_START names the sub-agent session of its call (`metadata.child_session_id`), the
// sub-agent's session records its parent (`metadata.parent`). `sessionTree` returns the tree of a
// session; `followTree` follows a session and, as their calls start, its descendants, each of
// their events a copy tagged with its `metadata.session_id` (the session's own are untagged).
import { Observable, Subscription } from 'rxjs'
import { AgentError } from '../errors.js'
import type { AgentEvent } from '../events.js'
import { isParentLink, type ParentLink } from '../subagents/childLogs.js'
import type { SessionInfo, SessionStore } from './types.js'

export interface SessionTree {
  session_id: string
  status: SessionInfo['status']
  /** The call this session runs as a sub-agent (its parent session, reply and call), or null for a root. */
  parent: ParentLink | null
  title?: string
  /** The sub-agent sessions its calls started, oldest first (calls whose sub-agent never got a session are left out). */
  children: SessionTree[]
}

/** The sub-agent session a parent's event starts, if it is a sub-agent call's TOOL_RESULT_START. */
export const startedSubagent = (event: AgentEvent): string | undefined => {
  const id = event.type === 'TOOL_RESULT_START' ? event.metadata.child_session_id : undefined
  return typeof id === 'string' ? id : undefined
}

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
export const subagentsOpenAt = async (store: SessionStore, session_id: string, fromSeq: number): Promise<string[]> => {
  const upTo = (await store.read(session_id)).filter((event) => Number(event.metadata.seq) <= fromSeq)
  const ended = new Set(upTo.flatMap((event) => (event.type === 'REPLY_END' ? [event.reply_id] : [])))
  return upTo.flatMap((event) => {
    const child = startedSubagent(event)
    return child && event.type === 'TOOL_RESULT_START' && !ended.has(event.reply_id) ? [child] : []
  })
}

/** The tree under `session_id`: ids, parents, status, from the sessions' logs and infos. NOT_FOUND for an unknown session. */
export const sessionTree = async (store: SessionStore, session_id: string): Promise<SessionTree> => {
  const info = await store.info(session_id)
  const children: SessionTree[] = []
  for (const { child_session_id } of await sessionChildren(store, session_id)) {
    try {
      children.push(await sessionTree(store, child_session_id))
    } catch (error) {
      if (!(error instanceof AgentError && error.code === 'NOT_FOUND')) throw error
    }
  }
  const parent = isParentLink(info.metadata.parent) ? info.metadata.parent : null
  return { session_id, status: info.status, parent, ...(info.title !== undefined && { title: info.title }), children }
}

/** How long a sub-agent's session may take to appear after its call started (it is created right after). */
const APPEAR_TRIES = 200
const APPEAR_MS = 10

/**
 * The events of `session_id` after `fromSeq`, then live ones; with each sub-agent call that starts
 * (and each call of the reply in progress, `open`), the sub-agent's events from its start, tagged
 * with its `metadata.session_id`, recursively. A sub-agent is followed until its REPLY_END. An
 * `open` sub-agent's history comes before the session's events (which it caused, such as its call's end).
 */
export const followTree = (store: SessionStore, session_id: string, options: { fromSeq?: number; open?: readonly string[] } = {}): Observable<AgentEvent> =>
  new Observable<AgentEvent>((subscriber) => {
    const subscriptions = new Subscription()
    const followed = new Set<string>()
    // A sub-agent's session is created just after its call's TOOL_RESULT_START: while one is not
    // found yet, the followed session's events wait, so the sub-agent's come before those they caused.
    const appearing = new Set<string>()
    const held: AgentEvent[] = []
    const own = (event: AgentEvent) => {
      if (appearing.size) return void held.push(event)
      subscriber.next(event)
      const started = startedSubagent(event)
      if (started) child(started)
    }
    const appeared = (id: string) => {
      if (!appearing.delete(id) || appearing.size) return
      for (const event of held.splice(0)) own(event)
    }
    // `open`: started before the follow, so the session's events wait until its history has come
    // (the burst a store sends first, or a while for a session without events).
    const child = (id: string, tries = 0, open = false) => {
      if (tries === 0 && followed.has(id)) return
      followed.add(id)
      // Its own subscription, so that a REPLY_END met while the history is replayed can end it.
      const follow = new Subscription()
      subscriptions.add(follow)
      let missing = false
      let first = open
      if (open && tries === 0) {
        appearing.add(id)
        const timer = setTimeout(() => appeared(id), APPEAR_TRIES * APPEAR_MS)
        subscriptions.add(() => clearTimeout(timer))
      }
      follow.add(store.follow(id).subscribe({
        next: (event) => {
          if (follow.closed) return
          if (first) {
            first = false
            queueMicrotask(() => appeared(id))
          }
          subscriber.next({ ...event, metadata: { ...event.metadata, session_id: id } })
          const started = startedSubagent(event)
          if (started) child(started)
          if (event.type === 'REPLY_END') {
            follow.unsubscribe()
            subscriptions.remove(follow)
          }
        },
        error: (error: unknown) => {
          subscriptions.remove(follow)
          // Not created yet (its call has just started): try again shortly; any other failure ends only this branch.
          if (error instanceof AgentError && error.code === 'NOT_FOUND' && tries < APPEAR_TRIES) {
            missing = true
            appearing.add(id)
            const timer = setTimeout(() => child(id, tries + 1, open), APPEAR_MS)
            subscriptions.add(() => clearTimeout(timer))
          } else appeared(id)
        },
      }))
      if (!missing && !open) appeared(id)
    }
    for (const id of options.open ?? []) child(id, 0, true)
    subscriptions.add(store.follow(session_id, { fromSeq: options.fromSeq }).subscribe({
      next: own,
      error: (error) => subscriber.error(error),
      complete: () => subscriber.complete(),
    }))
    return subscriptions
  })
