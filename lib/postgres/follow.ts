// Following a session across processes: the events after `fromSeq` are read, then re-read after
// the last seq delivered whenever an append pointer for the session arrives (from NOTIFY, or from
// this process's own writer) and after every reconnect, one read at a time. Every event is
// delivered once, in order, whoever wrote it; a pointer is only a wake-up, the rows are the truth.
import { Observable } from 'rxjs'
import type { Pool } from 'pg'
import type { AgentEvent } from '../core/events.js'
import type { Listener } from './listener.js'
import { loadEvents, loadInfo } from './load.js'
import type { Names } from './sql.js'

export class Followers {
  /** Local wake-ups by session: the writer pokes them right after a commit. */
  private readonly bySession = new Map<string, Set<() => void>>()

  constructor(private readonly pool: Pool, private readonly n: Names, private readonly listener: Listener) {
    listener.on(n.eventsChannel, (payload) => this.poke(payload.slice(0, payload.lastIndexOf(' '))))
  }

  poke(session_id: string): void {
    for (const wake of this.bySession.get(session_id) ?? []) wake()
  }

  follow(session_id: string, fromSeq: number): Observable<AgentEvent> {
    return new Observable<AgentEvent>((subscriber) => {
      let last = fromSeq
      let reading = false
      let again = false
      let stopped = false
      const read = async () => {
        if (reading) return void (again = true)
        reading = true
        try {
          do {
            again = false
            const events = await loadEvents(this.pool, this.n, session_id, last)
            for (const event of events) {
              if (stopped) return
              last++
              subscriber.next(event)
            }
          } while (again && !stopped)
        } catch (error) {
          subscriber.error(error)
        } finally {
          reading = false
        }
      }
      let wakes = this.bySession.get(session_id)
      if (!wakes) this.bySession.set(session_id, (wakes = new Set()))
      wakes.add(read)
      const unwatch = this.listener.onReconnect(read)
      this.listener.ready()
        .then(() => loadInfo(this.pool, this.n, session_id))
        .then(read, (error: unknown) => subscriber.error(error))
      return () => {
        stopped = true
        unwatch()
        wakes.delete(read)
        if (wakes.size === 0) this.bySession.delete(session_id)
      }
    })
  }
}
