// The log store interface the agent writes through, and its in-memory implementation (the
// default). `append` is optimistic: it names the position it expects to write after, and refuses
// when another writer got there first. A networked store implements the same four calls.
import { Observable, Subject } from 'rxjs'
import { AgentError } from './errors.js'
import type { AgentEvent } from './events.js'
import type { AgentState } from '../../reducers/state.js'

export interface LogStore {
  /** Every event appended so far, in order; an event's seq is its index + 1. */
  readonly events: readonly AgentEvent[]
  /**
   * Appends `events` after position `expectedSeq`; throws LOG_CONFLICT if the log is longer. The
   * array and the options object are lent for the call only: copy what you keep, not them.
   */
  append(events: readonly AgentEvent[], options: { expectedSeq: number }): void
  /** The events after position `fromSeq` (default 0: all). */
  read(options?: { fromSeq?: number }): AgentEvent[]
  /** The events after `fromSeq`, then every event appended from now on. */
  follow(options?: { fromSeq?: number }): Observable<AgentEvent>
  /** Releases the log (flushes and unlocks a file); appending afterwards throws CLOSED. */
  close(): Promise<void>
  /** Optional: a trusted snapshot, the state after event `seq`; a restore folds only the events after it. */
  snapshot?(): { seq: number; state: AgentState } | null
  /**
   * Optional, for a log that commits after `append` returns (a database): resolves once every event
   * appended so far is durable; rejects with the log's failure. A log without it is durable (or
   * written to the OS) when `append` returns, and the agent then never waits for it.
   */
  flush?(): Promise<void>
  /**
   * Optional, with `flush`: `listener` is called once if a commit fails after `append` returned
   * (LOG_UNAVAILABLE, LOG_CONFLICT); appends throw that error from then on. Returns an unsubscribe.
   */
  onFailure?(listener: (error: Error) => void): () => void
  /**
   * Optional, for a log owned through a lease another process can take (a networked store): called
   * before a side effect another owner might do too (a routed command, a tool or a model call).
   * Null when this process surely still owns the log; otherwise a promise that resolves once that is
   * proven, or fails the log and rejects when another process may own it now.
   */
  confirm?(): Promise<void> | null
}

export const memoryLog = (initial: readonly AgentEvent[] = []): LogStore => {
  const events: AgentEvent[] = [...initial]
  const appended = new Subject<AgentEvent>()
  let closed = false
  return {
    events,
    append(batch, { expectedSeq }) {
      if (closed) throw new AgentError('CLOSED', 'The log is closed; create a new agent to go on.')
      if (expectedSeq !== events.length)
        throw new AgentError('LOG_CONFLICT', `Expected to append after event ${expectedSeq}, but the log holds ${events.length}: another writer appended first. Reload the log and retry.`)
      for (const event of batch) events.push(event)
      if (appended.observed) for (const event of batch) appended.next(event)
    },
    read: ({ fromSeq = 0 } = {}) => events.slice(fromSeq),
    follow: ({ fromSeq = 0 } = {}) => new Observable<AgentEvent>((subscriber) => {
      for (let i = fromSeq; i < events.length; i++) subscriber.next(events[i])
      return appended.subscribe(subscriber)
    }),
    async close() {
      closed = true
      appended.complete()
    },
  }
}
