// Following a session across processes: an ordered consumer on the session's subject from the
// message holding event fromSeq + 1 (located by load.ts), delivering each event once, in order,
// whoever wrote it. JetStream pushes new messages as they are stored; the ordered consumer
// recreates itself after a lost connection or a gap, so nothing is skipped or repeated.
import { Observable } from 'rxjs'
import type { AgentEvent } from '../events.js'
import type { Nats } from './connection.js'
import { unavailable } from './errors.js'
import { consume, damaged, loadInfo, locate, parseMessage } from './load.js'
import { keyOf, type Names } from './names.js'

export const follow = (nats: () => Promise<Nats>, n: Names, session_id: string, fromSeq: number): Observable<AgentEvent> =>
  new Observable<AgentEvent>((subscriber) => {
    const signal: { stopped: boolean; stop?: () => void } = { stopped: false }
    const key = keyOf(session_id)
    let expected = fromSeq + 1
    const run = async () => {
      const c = await nats()
      const info = await loadInfo(c, n, session_id, key)
      // Nothing after fromSeq yet: follow from the next message to come.
      const start = (await locate(c, n, key, fromSeq, info.position)) ?? (info.position ? info.position.streamSeq + 1 : 1)
      if (signal.stopped) return
      await consume(c, n, key, start, (m) => {
        if (m.last < expected) return
        if (m.first > expected) throw damaged(session_id, m.first, `event ${expected} is missing (the next stored is ${m.first})`)
        for (const event of parseMessage(session_id, m.body, m.first, expected - 1)) {
          if (signal.stopped) return true
          expected++
          subscriber.next(event)
        }
        return signal.stopped
      }, signal)
    }
    run().catch((error: unknown) => subscriber.error(unavailable(error, `following session ${session_id}`)))
    return () => {
      signal.stopped = true
      signal.stop?.()
    }
  })
