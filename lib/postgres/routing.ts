// Routing a command to the process that owns a session: the caller writes a durable request row
// and NOTIFYs a pointer ("n SESSION_ID"); the owner answers the session's pending rows in order,
// writes each outcome (the events it caused, or the coded refusal) and NOTIFYs "d ID". A missed
// notification loses nothing: the caller re-checks its row now and then, and when the owner is gone
// it takes the session over (its hub opens it and answers the pending rows, its own among them).
// The caller deletes its row once it has read the answer; the owner, answering, removes answered
// rows older than ANSWERED_ROW_TTL_MS (left by callers that died). Each command is applied once: its
// input event carries the request's id (`metadata.request_id`), and a row records the session's last
// committed event when it was made, so an owner that finds a row a dead owner applied but never
// answered answers it with the events already in the log instead of applying it again.
import { AgentError, type AgentErrorCode } from '../core/errors.js'
import type { AgentEvent } from '../core/events.js'
import type { Command } from '../hub/commands.js'
import type { SessionOwner, SessionRouting, SessionServer } from '../hub/types.js'
import type { Listener } from './listener.js'
import { query, type Queryable } from './load.js'
import type { Names } from './sql.js'

/** How often a waiting caller re-checks its request (and tries to take an orphaned session over). */
export const RECHECK_MS = 250

/** How long an answered request's row waits for its caller before any owner removes it. */
export const ANSWERED_ROW_TTL_MS = 10 * 60_000

type Outcome = { events: AgentEvent[] } | { error: { code?: AgentErrorCode; message: string } }

/** `pool` runs the routing statements: the store passes its control connection (listener.ts). */
export const pgRouting = (pool: Queryable, n: Names, listener: Listener): SessionRouting => {
  const answered = new Map<string, () => void>()
  listener.on(n.requestsChannel, (payload) => {
    if (payload.startsWith('d ')) answered.get(payload.slice(2))?.()
  })

  /** The outcome once answered; the row is then deleted in the background (off the caller's path). */
  const collect = async (id: string): Promise<Outcome | null> => {
    const [row] = await query<{ outcome: string }>(pool, n, 'reading a routed request', `SELECT outcome FROM ${n.requests} WHERE id = $1 AND done`, [id])
    if (!row) return null
    void query(pool, n, 'removing an answered request', `DELETE FROM ${n.requests} WHERE id = $1`, [id]).catch(() => undefined)
    return JSON.parse(row.outcome) as Outcome
  }

  const send = async (session_id: string, command: Command, takeOver: () => Promise<void>): Promise<AgentEvent[]> => {
    await listener.ready()
    const [{ id }] = await query<{ id: string }>(pool, n, `routing a request to the owner of session ${session_id}`,
      // Committed without waiting for the disk: a request lost with the server fails its caller, who
      // then retries; the owner's answer and the events it causes are committed durably.
      `WITH quick AS (SELECT set_config('synchronous_commit', 'off', true)),
       r AS (INSERT INTO ${n.requests} (session_id, command, after_seq)
             SELECT $1, $2, (SELECT last_seq FROM ${n.sessions} WHERE session_id = $1) FROM quick RETURNING id)
       SELECT id, pg_notify($3, 'n ' || $1) FROM r`,
      [session_id, JSON.stringify(command), n.requestsChannel])
    let wake: () => void = () => {}
    answered.set(id, () => wake())
    try {
      for (;;) {
        // Woken by the owner's answer, or by the timer: then the row is checked all the same.
        const woken = await new Promise<boolean>((resolve) => {
          const timer = setTimeout(() => resolve(false), RECHECK_MS)
          wake = () => {
            clearTimeout(timer)
            resolve(true)
          }
        })
        const outcome = await collect(id)
        if (outcome) {
          if ('error' in outcome) throw outcome.error.code ? new AgentError(outcome.error.code, outcome.error.message) : new Error(outcome.error.message)
          return outcome.events
        }
        // Still pending: if the owner is gone, take the session (its requests are then answered here).
        if (!woken) await takeOver().catch((error: unknown) => {
          if ((error as AgentError)?.code !== 'SESSION_BUSY') throw error
        })
      }
    } catch (error) {
      await query(pool, n, 'withdrawing a routed request', `DELETE FROM ${n.requests} WHERE id = $1`, [id]).catch(() => undefined)
      throw error
    } finally {
      answered.delete(id)
    }
  }

  const serve = (owner: SessionOwner): SessionServer => {
    const draining = new Map<string, boolean>()
    const drain = async (session_id: string) => {
      if (draining.has(session_id)) return void draining.set(session_id, true)
      draining.set(session_id, false)
      try {
        do {
          draining.set(session_id, false)
          const rows = await query<{ id: string; command: string; after_seq: string | null }>(pool, n, 'reading routed requests',
            `SELECT id, command, after_seq FROM ${n.requests} WHERE session_id = $1 AND NOT done ORDER BY id`, [session_id])
          for (const { id, command, after_seq } of rows) {
            let outcome: Outcome
            try {
              const request = { id, afterSeq: after_seq === null ? null : Number(after_seq) }
              const events = await owner.run(session_id, JSON.parse(command) as Command, request)
              // No longer held here: the caller takes the session over and answers the rest.
              if (!events) return
              outcome = { events }
            } catch (error) {
              outcome = { error: { code: error instanceof AgentError ? error.code : undefined, message: (error as Error)?.message ?? String(error) } }
            }
            await query(pool, n, 'answering a routed request',
              `WITH u AS (UPDATE ${n.requests} SET done = true, outcome = $2, answered_at = now() WHERE id = $1 RETURNING id),
               forgotten AS (DELETE FROM ${n.requests} WHERE done AND answered_at < now() - make_interval(secs => $4::double precision / 1000))
               SELECT pg_notify($3, 'd ' || id) FROM u`,
              [id, JSON.stringify(outcome), n.requestsChannel, ANSWERED_ROW_TTL_MS])
          }
        } while (draining.get(session_id))
      } catch {
        // The database is unreachable: callers re-check their rows and take over when they can.
      } finally {
        draining.delete(session_id)
      }
    }
    const stop = listener.on(n.requestsChannel, (payload) => {
      if (!payload.startsWith('n ')) return
      const session_id = payload.slice(2)
      if (owner.has(session_id)) void drain(session_id)
    })
    const again = listener.onReconnect(() => {
      for (const session_id of owner.sessions()) void drain(session_id)
    })
    void listener.ready().catch(() => undefined)
    return {
      opened: (session_id) => void drain(session_id),
      stop() {
        stop()
        again()
      },
    }
  }

  return { send, serve }
}
