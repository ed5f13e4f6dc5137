// Following a session with its sub-agents: the session's events after `fromSeq`, then live ones,
// and, as their calls start, its sub-agents' (recursively), each a copy tagged with its
// `metadata.session_id` (the session's own are untagged). Every session is its own follow of the
// store, so the streams arrive in any order; they are put in the order they happened where one
// caused the other: a parent's events wait after a sub-agent call's TOOL_RESULT_START until the
// sub-agent's session is found, at the REQUIRE_EXTERNAL_EXECUTION that parks the call until the
// sub-agent's pause has come (a call parks when its sub-agent does), and at the call's
// TOOL_RESULT_END until the sub-agent's REPLY_END has come (a sub-agent's reply always ends before
// its call does). Events of unrelated sessions interleave as they come. A sub-agent is followed
// until its REPLY_END; a session that does not name its call back (linkedChild) is not followed.
import { Observable, Subscription } from 'rxjs'
import { AgentError } from '../core/errors.js'
import type { AgentEvent } from '../core/events.js'
import { startedSubagent } from '../subagents/childLogs.js'
import { enterLink } from '../subagents/linkWalk.js'
import { linkedChild, storedParent } from './linkedChild.js'
import type { SessionStore } from './types.js'

/**
 * A sub-agent whose call started before the follow: the call (`parent` session, `tool_call_id`)
 * and where to start (after its event `fromSeq`; default its start).
 */
export interface OpenSubagent {
  readonly session_id: string
  readonly parent: string
  readonly tool_call_id: string
  readonly fromSeq?: number
}

/**
 * A sub-agent's session is created right after its call started, but a slow store may show it
 * later: it is looked for again (10 ms, doubling up to 500 ms between tries) for as long as its
 * call is open. Once the parent closed the call, it is looked for once more if the call was cut (a
 * sub-agent that never started, or whose session is gone), for about half a minute if the call's
 * result names it (it ran), then given up on.
 */
const APPEAR_MS = 10
const APPEAR_MAX_MS = 500
/** Tries for a sub-agent whose call's result names it (it ran) but that a slow store does not show yet: about half a minute. */
const RAN_TRIES = 64

/** The key of a call: its session and id (call ids are unique within a session's reply only). */
const callKey = (session_id: string, tool_call_id: string) => `${session_id}\n${tool_call_id}`

export const followTree = (store: SessionStore, session_id: string, options: { fromSeq?: number; open?: readonly OpenSubagent[] } = {}): Observable<AgentEvent> =>
  new Observable<AgentEvent>((subscriber) => {
    const subscriptions = new Subscription()
    const parentOf = storedParent(store)
    /** Every sub-agent followed, by session: until its session is found, whether its last event so far is a pause, and whether its REPLY_END has come. */
    const followed = new Map<string, { found: boolean; paused: boolean; ended: boolean; depth: number; parent: string; call: string; closed?: 'ran' | 'cut'; retry?: () => void }>()
    /** The sub-agent session of each sub-agent call met, by callKey. */
    const childOfCall = new Map<string, string>()
    /** Per session: the events held, and the sub-agent they wait for (its session found, or its end). */
    const held = new Map<string, { events: AgentEvent[]; on: string | null }>()

    const tag = (id: string, event: AgentEvent): AgentEvent => (id === session_id ? event : { ...event, metadata: { ...event.metadata, session_id: id } })

    /** What `event` of session `id` must wait for, or null when it can go now. */
    const waitsFor = (id: string, event: AgentEvent): string | null => {
      if (event.type === 'TOOL_RESULT_END') {
        const child = childOfCall.get(callKey(id, event.tool_call_id))
        return child !== undefined && followed.get(child)?.ended === false ? child : null
      }
      if (event.type !== 'REQUIRE_EXTERNAL_EXECUTION') return null
      for (const call of event.tool_calls) {
        const child = childOfCall.get(callKey(id, call.id))
        const state = child === undefined ? undefined : followed.get(child)
        if (state && !state.paused && !state.ended) return child!
      }
      return null
    }

    /**
     * The parent `id` closed the call (or the reply) of a sub-agent not found yet: it is looked for
     * once more at once, and given up on if it still is not there (it never started, or is gone).
     */
    const closesCall = (id: string, event: AgentEvent) => {
      if (event.type !== 'TOOL_RESULT_END' && event.type !== 'REPLY_END') return
      for (const [child, state] of followed)
        if (!state.found && !state.closed && state.parent === id && (event.type === 'REPLY_END' || state.call === event.tool_call_id)) {
          // A result that names its sub-agent (the agent tool's outcome): the session exists, a slow store shows it later.
          state.closed = event.type === 'TOOL_RESULT_END' && event.metadata.child_session_id === child ? 'ran' : 'cut'
          if (state.closed === 'cut') state.retry?.()
        }
    }

    const arrive = (id: string, event: AgentEvent) => {
      closesCall(id, event)
      const queue = held.get(id)
      if (queue) return void queue.events.push(event)
      const on = waitsFor(id, event)
      if (on !== null) return void held.set(id, { events: [event], on })
      pass(id, event)
    }

    const pass = (id: string, event: AgentEvent) => {
      subscriber.next(tag(id, event))
      if (id !== session_id) {
        if (event.type === 'REPLY_END') return ended(id)
        const state = followed.get(id)!
        state.paused = event.type === 'REQUIRE_USER_CONFIRM' || event.type === 'REQUIRE_EXTERNAL_EXECUTION'
        if (state.paused) release(id)
      }
      const started = startedSubagent(event)
      if (started && event.type === 'TOOL_RESULT_START') {
        childOfCall.set(callKey(id, event.tool_call_id), started)
        // The sub-agent's events come before those of this session that they caused.
        if (!followed.has(started)) {
          const depth = id === session_id ? 1 : followed.get(id)!.depth + 1
          try {
            enterLink(new Set([session_id]), started, depth, `Following the tree of session ${session_id}`)
          } catch (error) {
            return subscriber.error(error)
          }
          held.set(id, { events: [], on: started })
          follow(started, 0, { depth, parent: id, call: event.tool_call_id })
        }
      }
    }

    /** The sub-agent `child` was found, paused or ended (or given up on): the sessions waiting on it go on if they can. */
    const release = (child: string) => {
      for (const [id, queue] of [...held]) {
        if (queue.on !== child || !followed.get(child)!.found) continue
        if (queue.events.length > 0 && waitsFor(id, queue.events[0]) === child) continue
        held.delete(id)
        for (const event of queue.events) arrive(id, event)
      }
    }

    const found = (child: string) => {
      const state = followed.get(child)!
      if (state.found) return
      state.found = true
      release(child)
    }

    const ended = (child: string) => {
      const state = followed.get(child)!
      state.found = true
      state.ended = true
      release(child)
    }

    const follow = (child: string, fromSeq: number, link: { depth: number; parent: string; call: string }, tries = 0) => {
      // Followed from a later seq (a resume): it may be paused already, and its pause is not sent again.
      if (tries === 0) followed.set(child, { found: false, paused: fromSeq > 0, ended: false, ...link })
      // A session that does not name this call back (another tree's) is not followed: as one that is gone.
      linkedChild(parentOf, link.parent, link.call, child).then(
        (linked) => (subscriptions.closed ? undefined : linked ? subscribe(child, fromSeq, link, tries) : ended(child)),
        (error: unknown) => (error instanceof AgentError && error.code === 'NOT_FOUND' ? subscribe(child, fromSeq, link, tries) : ended(child)),
      ).catch((error: unknown) => subscriber.error(error))
    }

    const subscribe = (child: string, fromSeq: number, link: { depth: number; parent: string; call: string }, tries: number) => {
      if (subscriptions.closed) return
      // Its own subscription, so that a REPLY_END met while the history is replayed can end it.
      const own = new Subscription()
      subscriptions.add(own)
      own.add(store.follow(child, fromSeq ? { fromSeq } : undefined).subscribe({
        next: (event) => {
          if (own.closed) return
          found(child)
          if (event.type === 'REPLY_END') {
            own.unsubscribe()
            subscriptions.remove(own)
          }
          arrive(child, event)
        },
        error: (error: unknown) => {
          subscriptions.remove(own)
          // Not created yet (its call has just started): try again shortly; any other failure ends only this branch.
          const state = followed.get(child)!
          if (error instanceof AgentError && error.code === 'NOT_FOUND' && !state.ended && state.closed !== 'cut' && (state.closed !== 'ran' || tries < RAN_TRIES)) {
            const again = () => {
              clearTimeout(timer)
              state.retry = undefined
              if (!state.ended) follow(child, fromSeq, link, tries + 1)
            }
            const timer = setTimeout(again, Math.min(APPEAR_MS * 2 ** tries, APPEAR_MAX_MS))
            state.retry = again
            subscriptions.add(() => clearTimeout(timer))
          } else ended(child)
        },
        // The store ended the follow before its REPLY_END (the session was deleted): nothing more will come.
        complete: () => ended(child),
      }))
      // Subscribed without a NOT_FOUND: the session exists (a store reports a missing one at once).
      if (!own.closed && tries === 0) queueMicrotask(() => found(child))
    }

    for (const open of options.open ?? []) {
      childOfCall.set(callKey(open.parent, open.tool_call_id), open.session_id)
      follow(open.session_id, open.fromSeq ?? 0, { depth: 1, parent: open.parent, call: open.tool_call_id })
    }
    subscriptions.add(store.follow(session_id, { fromSeq: options.fromSeq }).subscribe({
      next: (event) => arrive(session_id, event),
      error: (error) => subscriber.error(error),
      complete: () => subscriber.complete(),
    }))
    return subscriptions
  })
