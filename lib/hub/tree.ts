// A tree of sessions in a store, read from the links in the logs (no side table): a parent's
// TOOL_RESULT_START names the sub-agent session of its call (`metadata.child_session_id`), the
// sub-agent's session records its parent (`metadata.parent`). `sessionTree` returns the tree of a
// session; `followTree` follows a session and, as their calls start, its descendants, each of
// their events a copy tagged with its `metadata.session_id` (the session's own are untagged).
import { Observable, Subscription } from 'rxjs'
import { AgentError } from '../errors.js'
import type { AgentEvent } from '../events.js'
import { isParentLink, startedSubagent, type ParentLink } from '../subagents/childLogs.js'
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

export { startedSubagent }

/** The sessions started by the calls of `session_id`, with the calls' reply and id, oldest first (reads its log). */
export const sessionChildren = async (store: SessionStore, session_id: string): Promise<(ParentLink & { child_session_id: string })[]> =>
  (await store.read(session_id)).flatMap((event) => {
    const child_session_id = startedSubagent(event)
    return child_session_id && event.type === 'TOOL_RESULT_START' ? [{ session_id, reply_id: event.reply_id, tool_call_id: event.tool_call_id, child_session_id }] : []
  })

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

/** A sub-agent session to follow from its start, or from after its event `fromSeq`. */
export type OpenSubagent = string | { readonly session_id: string; readonly fromSeq: number }

/**
 * The events of `session_id` after `fromSeq`, then live ones; with each sub-agent call that starts
 * (and each sub-agent of the reply in progress, `open`), the sub-agent's events from its start (or
 * from its `fromSeq`), tagged with its `metadata.session_id`, recursively. A sub-agent is followed
 * until its REPLY_END.
 */
export const followTree = (store: SessionStore, session_id: string, options: { fromSeq?: number; open?: readonly OpenSubagent[] } = {}): Observable<AgentEvent> =>
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
    const child = (id: string, tries = 0, fromSeq = 0) => {
      if (tries === 0 && followed.has(id)) return
      followed.add(id)
      // Its own subscription, so that a REPLY_END met while the history is replayed can end it.
      const follow = new Subscription()
      subscriptions.add(follow)
      let missing = false
      follow.add(store.follow(id, fromSeq ? { fromSeq } : undefined).subscribe({
        next: (event) => {
          if (follow.closed) return
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
            const timer = setTimeout(() => child(id, tries + 1, fromSeq), APPEAR_MS)
            subscriptions.add(() => clearTimeout(timer))
          } else appeared(id)
        },
      }))
      if (!missing) appeared(id)
    }
    subscriptions.add(store.follow(session_id, { fromSeq: options.fromSeq }).subscribe({
      next: own,
      error: (error) => subscriber.error(error),
      complete: () => subscriber.complete(),
    }))
    for (const open of options.open ?? []) {
      if (typeof open === 'string') child(open)
      else child(open.session_id, 0, open.fromSeq)
    }
    return subscriptions
  })
