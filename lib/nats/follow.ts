// Following a session across processes: an ordered consumer on the session's subject from the
// message holding event fromSeq + 1 (located by load.ts), delivering each event once, in order,
// whoever wrote it. JetStream pushes new messages as they are stored; the ordered consumer
// recreates itself after a lost connection or a gap. A consumer can still stall when the cluster
// moves the stream's leader (it sees a replica that no longer grows), so a watchdog compares the
// session's last event with the last delivered now and then, and starts a new consumer from there
// when nothing came although the log grew. Events are counted by seq: none is skipped or repeated.
// A follow of a session that is deleted ends with NOT_FOUND (the watchdog finds its record gone or
// made again; a message starting the log over is a new session's), never going on into a new one.
import { Observable } from 'rxjs'
import { sleep } from '../core/abort.js'
import { AgentError } from '../core/errors.js'
import type { AgentEvent } from '../core/events.js'
import type { Nats } from './connection.js'
import { unavailable } from './errors.js'
import { consume, damaged, lastPosition, loadInfo, locate, parseMessage, type Position } from './load.js'
import { keyOf, type Names } from './names.js'

/** How long a follower keeps trying while the server is unreachable before it fails. */
const GIVE_UP_MS = 30_000

/** How often a follower checks that it is not behind the log. */
export const WATCHDOG_MS = 1000

export const follow = (nats: () => Promise<Nats>, n: Names, session_id: string, fromSeq: number): Observable<AgentEvent> =>
  new Observable<AgentEvent>((subscriber) => {
    const signal: { stopped: boolean; stop?: () => void } = { stopped: false }
    const key = keyOf(session_id)
    let expected = fromSeq + 1
    /** The stream position of the last message seen (a message after it that starts at event 1 is a new session's). */
    let lastStreamSeq = 0
    let progressed = true
    let restarting = false
    /** The revision of the session's record when the follow began: a delete removes it, a session created again under the id has another. */
    let record = 0
    const deleted = () => new AgentError('NOT_FOUND', `Session ${session_id} was deleted while it was followed; its follow ends here (a session created again under its id is another one: follow it anew).`, { session_id, deleted: true })
    const sameSession = async (c: Nats) => {
      const entry = await c.sessions.get(key)
      return !!entry && entry.operation === 'PUT' && entry.revision === record
    }
    const run = async () => {
      const c = await nats()
      record = (await c.sessions.get(key).catch(() => null))?.revision ?? 0
      let { position } = await loadInfo(c, n, session_id, key)
      let failingSince = 0
      while (!signal.stopped) {
        try {
          await pass(c, position)
          failingSince = 0
        } catch (error) {
          // A consumer lost or not created while the cluster recovers: start again, for a while.
          if (error instanceof AgentError && error.code !== 'LOG_UNAVAILABLE') throw error
          failingSince ||= Date.now()
          if (Date.now() - failingSince > GIVE_UP_MS) throw error
          await sleep(250)
        }
        position = await lastPosition(c, n, key).catch(() => position)
      }
    }
    const pass = async (c: Nats, position: Position | null) => {
      // Nothing after the last delivered yet: follow from the next message to come.
      const start = (await locate(c, n, key, expected - 1, position)) ?? (position ? position.streamSeq + 1 : 1)
      if (signal.stopped) return
      restarting = false
      await consume(c, n, key, start, (m) => {
        // A message that starts the log over: the session was deleted and created again.
        if (m.first < expected && m.seq > lastStreamSeq && lastStreamSeq > 0 && m.first === 1) throw deleted()
        lastStreamSeq = Math.max(lastStreamSeq, m.seq)
        if (m.last < expected) return
        if (m.first > expected) throw damaged(session_id, m.first, `event ${expected} is missing (the next stored is ${m.first})`)
        for (const event of parseMessage(session_id, m.body, m.first, expected - 1)) {
          if (signal.stopped || restarting) return true
          expected++
          progressed = true
          subscriber.next(event)
        }
        return signal.stopped || restarting
      }, signal)
    }
    // A quiet session is checked less and less often (every 1, 2, 4 … 16 ticks), an active one every tick.
    let quiet = 0
    let tick = 0
    const watchdog = setInterval(() => {
      if (progressed || restarting) {
        progressed = false
        quiet = 0
        return
      }
      if (++tick % Math.min(2 ** quiet, 8) !== 0) return
      void nats().then(async (c) => {
        const [last, same] = await Promise.all([lastPosition(c, n, key), sameSession(c)])
        if (signal.stopped) return
        if (!same) {
          signal.stopped = true
          signal.stop?.()
          return subscriber.error(deleted())
        }
        if (!last || last.last < expected || progressed) return void quiet++
        restarting = true
        signal.stop?.()
      }).catch(() => undefined)
    }, WATCHDOG_MS)
    watchdog.unref?.()
    run().catch((error: unknown) => subscriber.error(unavailable(error, `following session ${session_id}`)))
    return () => {
      signal.stopped = true
      clearInterval(watchdog)
      signal.stop?.()
    }
  })
