// Routing a command to the process that owns a session: the caller stores the request durably (a
// key "SESSION.ID" in the requests bucket: the command, and the session's last event when it was
// made) and asks the owner by request-reply on the session's route subject. The owner answers a
// session's requests one at a time: it applies the command, records the outcome (the events it
// caused, or the coded refusal) on the request's key, and replies with it. A reply that does not
// come (no owner, or it died) loses nothing: the caller re-reads its key, and when the owner is gone
// it takes the session over; whoever opens the session next answers the requests waiting for it.
// Each command is applied once: its input event carries the request id (`metadata.request_id`), so
// an owner that finds a request a dead owner applied but never answered answers it from the log.
// The caller deletes the key once it has read the answer; the bucket's TTL removes the rest.
// Requests, replies and keys travel on the store's control connection (connection.ts `control`),
// never behind the followers' pushed messages.
import type { Subscription } from '@nats-io/transport-node'
import { sleep } from '../core/abort.js'
import { AgentError, type AgentErrorCode } from '../core/errors.js'
import type { AgentEvent } from '../core/events.js'
import type { Command } from '../hub/commands.js'
import type { SessionOwner, SessionRouting, SessionServer } from '../hub/types.js'
import type { Nats } from './connection.js'
import { isNoResponders, isTimeout, unavailable } from './errors.js'
import { lastPosition } from './load.js'
import { keyOf, type Names } from './names.js'

/** How long a caller waits for the owner's reply before re-reading its request and trying to take the session over (an owner that died is known at once: no responders). */
export const RECHECK_MS = 500

/** How soon a caller tries again to take over a session whose owner is gone but whose lease has not run out. */
const TAKE_OVER_RETRY_MS = 200

type Outcome = { events: AgentEvent[] } | { error: { code?: AgentErrorCode; message: string } }
interface Request { command: Command; afterSeq: number | null; outcome?: Outcome }
/** What a caller sends the owner: the request's id, and the first time the request itself and its key's revision. */
interface Pointer { id: string; revision?: number; request?: Request }

let counter = 0
/** Request ids sort by the time they were made (a session's waiting requests are answered in order). */
const requestId = () => `${Date.now().toString(36).padStart(9, '0')}${(counter++ % 1296).toString(36).padStart(2, '0')}${crypto.randomUUID().slice(0, 8)}`

const encoder = new TextEncoder()

export const natsRouting = (nats: () => Promise<Nats>, n: Names): SessionRouting => {
  const send = async (session_id: string, command: Command, takeOver: () => Promise<void>): Promise<AgentEvent[]> => {
    const c = await nats()
    const key = keyOf(session_id)
    const id = requestId()
    const requestKey = `${key}.${id}`
    const last = await lastPosition(c, n, key)
    const request: Request = { command, afterSeq: last?.last ?? 0 }
    const revision = await c.control.requests.create(requestKey, JSON.stringify(request)).catch((error: unknown) => {
      throw unavailable(error, `routing a request to the owner of session ${session_id}`)
    })
    try {
      for (let attempt = 0; ; attempt++) {
        let outcome: Outcome | undefined
        let gone = false
        try {
          // The first time, the request travels whole (the owner need not read it back); later only its id.
          const pointer: Pointer = attempt === 0 ? { id, revision, request } : { id }
          const reply = await c.control.nc.request(n.route(key), encoder.encode(JSON.stringify(pointer)), { timeout: RECHECK_MS })
          outcome = reply.json<Outcome>()
        } catch (error) {
          if (!isNoResponders(error) && !isTimeout(error)) throw unavailable(error, `routing a request to the owner of session ${session_id}`)
          gone = isNoResponders(error)
          const entry = await c.control.requests.get(requestKey)
          outcome = entry?.operation === 'PUT' ? entry.json<Request>().outcome : undefined
        }
        if (outcome) {
          void c.control.requests.delete(requestKey).catch(() => undefined)
          if ('error' in outcome) throw outcome.error.code ? new AgentError(outcome.error.code, outcome.error.message) : new Error(outcome.error.message)
          return outcome.events
        }
        // No answer: if the owner is gone, take the session (its requests are then answered here).
        let busy = false
        await takeOver().catch((error: unknown) => {
          if ((error as AgentError)?.code !== 'SESSION_BUSY') throw error
          busy = true
        })
        if (busy && gone) await sleep(TAKE_OVER_RETRY_MS)
      }
    } catch (error) {
      await c.control.requests.delete(requestKey).catch(() => undefined)
      throw error
    }
  }

  const serve = (owner: SessionOwner): SessionServer => {
    const subscriptions = new Map<string, Subscription>()
    /** One request of a session at a time, in order. */
    const queues = new Map<string, Promise<void>>()
    let stopped = false

    const unsubscribe = (session_id: string) => {
      subscriptions.get(session_id)?.unsubscribe()
      subscriptions.delete(session_id)
    }

    /**
     * Answers one request: from its recorded outcome, or by applying it; `respond` hears the outcome
     * before it is recorded (a caller that misses the reply re-reads the key, or asks again, which
     * waits for the record behind this one). Nothing when the session is not held here or the
     * request was withdrawn.
     */
    const answer = async (c: Nats, session_id: string, pointer: Pointer, respond: (outcome: Outcome) => void) => {
      const requestKey = `${keyOf(session_id)}.${pointer.id}`
      let { request, revision } = pointer
      if (!request || revision === undefined) {
        const entry = await c.control.requests.get(requestKey)
        if (!entry || entry.operation !== 'PUT') return
        request = entry.json<Request>()
        revision = entry.revision
      }
      if (request.outcome) return respond(request.outcome)
      let outcome: Outcome
      try {
        const events = await owner.run(session_id, request.command, { id: pointer.id, afterSeq: request.afterSeq })
        if (!events) return
        outcome = { events }
      } catch (error) {
        outcome = { error: { code: error instanceof AgentError ? error.code : undefined, message: (error as Error)?.message ?? String(error) } }
      }
      respond(outcome)
      // Withdrawn or collected meanwhile (the caller has its answer, or gave up): nothing to record.
      await c.control.requests.update(requestKey, JSON.stringify({ ...request, outcome }), revision).catch(() => undefined)
    }

    const enqueue = (session_id: string, work: () => Promise<void>) => {
      const next = (queues.get(session_id) ?? Promise.resolve()).then(work).catch(() => undefined)
      queues.set(session_id, next)
      void next.then(() => {
        if (queues.get(session_id) === next) queues.delete(session_id)
      })
    }

    const subscribe = (c: Nats, session_id: string) => {
      if (subscriptions.has(session_id)) return
      const subscription = c.control.nc.subscribe(n.route(keyOf(session_id)), {
        callback: (error, msg) => {
          if (error) return
          enqueue(session_id, async () => {
            // No longer held here: stay silent (the owner, or the caller's re-read, answers).
            if (!owner.has(session_id)) return unsubscribe(session_id)
            await answer(c, session_id, msg.json<Pointer>(), (outcome) => msg.respond(JSON.stringify(outcome)))
          })
        },
      })
      subscriptions.set(session_id, subscription)
    }

    /** The session was opened here: listen for its requests, and answer those already waiting. */
    const opened = async (session_id: string) => {
      const c = await nats()
      if (stopped || !owner.has(session_id)) return
      subscribe(c, session_id)
      const waiting: string[] = []
      for await (const requestKey of await c.control.requests.keys(`${keyOf(session_id)}.*`)) waiting.push(requestKey.slice(requestKey.lastIndexOf('.') + 1))
      for (const id of waiting.sort()) enqueue(session_id, async () => void (owner.has(session_id) && await answer(c, session_id, { id }, () => undefined)))
    }

    // Sessions closed here stop being listened for.
    const sweep = setInterval(() => {
      for (const session_id of [...subscriptions.keys()]) if (!owner.has(session_id) && !queues.has(session_id)) unsubscribe(session_id)
    }, 1000)
    sweep.unref?.()

    return {
      opened: (session_id) => void opened(session_id).catch(() => undefined),
      stop() {
        stopped = true
        clearInterval(sweep)
        for (const session_id of [...subscriptions.keys()]) unsubscribe(session_id)
      },
    }
  }

  return { send, serve }
}
