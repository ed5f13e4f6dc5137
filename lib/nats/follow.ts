// Following a session across processes: an ordered consumer on the session's subject from the
// message holding event fromSeq + 1 (located by load.ts), delivering each event once, in order,
// whoever wrote it. JetStream pushes new messages as they are stored; the ordered consumer
// recreates itself after a lost connection or a gap. A consumer can still stall when the cluster
// moves the stream's leader (it sees a replica that no longer grows), so a watchdog compares the
// session's last event with the last delivered now and then, and starts a new consumer from there
// when nothing came although the log grew. Events are counted by seq: none is skipped or repeated.
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
    let progressed = true
    let restarting = false
    const run = async () => {
      const c = await nats()
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
      if (++tick % Math.min(2 ** quiet, 16) !== 0) return
      void nats().then((c) => lastPosition(c, n, key)).then((last) => {
        if (!last || last.last < expected || progressed || signal.stopped) return void quiet++
        restarting = true
        signal.stop?.()
      }, () => undefined)
    }, WATCHDOG_MS)
    watchdog.unref?.()
    run().catch((error: unknown) => subscriber.error(unavailable(error, `following session ${session_id}`)))
    return () => {
      signal.stopped = true
      clearInterval(watchdog)
      signal.stop?.()
    }
  })
