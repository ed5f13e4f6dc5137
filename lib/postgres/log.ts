// The LogStore of one session on PostgreSQL, owned by this process (its lease held). `append` stays
// synchronous: it checks the position and each event, keeps the event in memory (the agent reads
// it at once) and queues its wire JSON for the writer's next statement; `flush()` resolves once
// every appended event is committed. A failed commit fails the log: appends throw, flush rejects,
// `onFailure` listeners hear it once. Snapshots are written at sync points every `every` events.
import { Observable, Subject } from 'rxjs'
import { SYNC_POINTS } from '../core/commitGate.js'
import { AgentError, describe } from '../core/errors.js'
import type { AgentEvent } from '../core/events.js'
import { checkEvent } from '../stores/file/check.js'
import type { LogStore } from '../core/log.js'
import { statusAfter } from '../stores/sessions.js'
import { replay } from '../../reducers/root.js'
import { snapshotText } from '../../reducers/snapshot.js'
import type { ReplyStatus } from '../../reducers/state.js'
import { sha256, type Snapshot } from './load.js'
import type { Batch, Writable } from './writer.js'

export interface PgLogInit {
  session_id: string
  /** The trusted snapshot the events were read after, or null (they are all the events). */
  snapshot: Snapshot | null
  events: AgentEvent[]
  status: ReplyStatus
  /** Snapshots every this many events (0: none). */
  every: number
  schedule(log: Writable): void
  /** The log is closed; `failure`: it had failed (its reply cut here), or null. */
  release(failure: AgentError | null): Promise<void>
  /** Proves this process still owns the session before a side effect (LogStore.confirm); absent: nothing to prove. */
  confirm?(): Promise<void> | null
}

export interface PgLog extends LogStore, Writable {
  flush(): Promise<void>
  onFailure(listener: (error: Error) => void): () => void
}

export const pgLog = (init: PgLogInit): PgLog => {
  const { session_id, every } = init
  // Events 1..base are in the database only; `tail` holds the rest.
  const base = init.snapshot?.seq ?? 0
  const tail = init.events
  let folded: Snapshot | null = init.snapshot
  let status = init.status
  let committed = base + tail.length
  let pending: string[] = []
  let pendingSync = false
  let dueSync = false
  let failure: AgentError | null = null
  let closed = false
  const waiters: { upTo: number; resolve: () => void; reject: (e: Error) => void }[] = []
  const listeners = new Set<(error: Error) => void>()
  const appended = new Subject<AgentEvent>()
  const length = () => base + tail.length

  const read = (fromSeq: number): AgentEvent[] => {
    if (fromSeq >= base) return tail.slice(fromSeq - base)
    throw new AgentError('LOG_UNAVAILABLE', `Events 1-${base} of session ${session_id} were not loaded (it was opened from its snapshot at event ${base}); read them with await store.read('${session_id}').`, { session_id })
  }

  /** A proof that fails fails the log too (a side effect must not start on a log another process may own). */
  const confirmed = (proof: Promise<void> | null): Promise<void> | null => {
    if (failure) return Promise.reject(failure)
    return proof && proof.catch((error: unknown) => {
      log.fail(error instanceof AgentError ? error : new AgentError('LOG_UNAVAILABLE', `Session ${session_id}: could not prove this process still owns it: ${describe(error)}.`, { session_id }))
      throw failure ?? error
    })
  }

  const log: PgLog = {
    session_id,
    get events() {
      return read(0)
    },
    append(batch, { expectedSeq }) {
      if (failure) throw failure
      if (closed) throw new AgentError('CLOSED', `The log of session ${session_id} is closed; open the session again to go on.`)
      if (expectedSeq !== length())
        throw new AgentError('LOG_CONFLICT', `Expected to append after event ${expectedSeq}, but session ${session_id} holds ${length()}: another writer appended first. Reload the session and retry.`)
      const texts: string[] = []
      for (const event of batch) {
        const problem = checkEvent(event)
        if (problem !== null) throw new AgentError('INVALID_EVENT', `Refusing to write an invalid event to session ${session_id}: ${problem}; received ${describe(event)}.`)
        texts.push(JSON.stringify(event))
      }
      for (let i = 0; i < batch.length; i++) {
        const event = batch[i]
        tail.push(event)
        pending.push(texts[i])
        status = statusAfter(status, event.type)
        if (SYNC_POINTS.has(event.type)) pendingSync = true
      }
      init.schedule(log)
      for (const event of batch) appended.next(event)
    },
    read: ({ fromSeq = 0 } = {}) => read(fromSeq),
    follow: ({ fromSeq = 0 } = {}) => new Observable<AgentEvent>((subscriber) => {
      for (const event of read(fromSeq)) subscriber.next(event)
      return appended.subscribe(subscriber)
    }),
    snapshot: () => (folded ? { seq: folded.seq, state: folded.state } : null),
    ...(init.confirm ? { confirm: () => confirmed(init.confirm!()) } : {}),
    flush() {
      if (failure) return Promise.reject(failure)
      const upTo = length()
      if (committed >= upTo) return Promise.resolve()
      return new Promise((resolve, reject) => waiters.push({ upTo, resolve, reject }))
    },
    onFailure(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    take(): Batch | null {
      if (failure || pending.length === 0) return null
      const batch = { session_id, firstSeq: length() - pending.length + 1, bodies: pending, status }
      pending = []
      dueSync ||= pendingSync
      pendingSync = false
      return batch
    },
    committed(lastSeq) {
      committed = lastSeq
      for (let i = waiters.length - 1; i >= 0; i--) {
        if (waiters[i].upTo > committed) continue
        waiters[i].resolve()
        waiters.splice(i, 1)
      }
    },
    fail(error) {
      if (failure) return
      failure = error
      pending = []
      for (const w of waiters.splice(0)) w.reject(error)
      for (const listener of [...listeners]) {
        try {
          listener(error)
        } catch {
          // One listener's failure must not keep the others from hearing it.
        }
      }
    },
    snapshotDue() {
      if (!dueSync || every === 0 || failure) return null
      dueSync = false
      const from = folded?.seq ?? 0
      if (committed - from < every) return null
      const state = replay(read(from).slice(0, committed - from), folded?.state)
      folded = { seq: committed, state }
      const text = snapshotText(state)
      return { seq: committed, event_id: tail[committed - base - 1].id, state: text, sha256: sha256(text) }
    },
    async close() {
      if (closed) return
      closed = true
      try {
        await log.flush()
      } catch {
        // The failure was reported to the agent; what was not committed is not claimed as stored.
      } finally {
        appended.complete()
        await init.release(failure)
      }
    },
  }
  return log
}
