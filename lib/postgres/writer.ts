// Group commit: the appends of every session this process owns go to PostgreSQL in one multi-row
// INSERT per round trip, on the lease connection; the events appended while one is in flight go in
// the next. The same statement moves each session's last_seq and status (whose trigger NOTIFYs the
// followers). Control goes first: the sessions whose events end or pause a reply (a Stop's
// REPLY_END) are committed in a statement of their own before the others' deltas, so a closing
// event waits for at most the statement in flight, never for a batch of other sessions' bulk.
// A conflict on (session_id, seq) fails only the sessions that caused it; a refused
// statement fails the sessions in it; a lost connection fails them all (see lease.ts).
import { AgentError } from '../core/errors.js'
import { isConflict, unavailable } from './errors.js'
import type { Lease } from './lease.js'
import type { Names } from './sql.js'

/** One session's events taken for a statement. */
export interface Batch {
  session_id: string
  firstSeq: number
  bodies: string[]
  status: string
}

/** The writer's side of an owned log. */
export interface Writable {
  readonly session_id: string
  take(): Batch | null
  committed(lastSeq: number): void
  fail(error: AgentError): void
  /** After a commit: a snapshot to write, when one is due. */
  snapshotDue(): { seq: number; event_id: string; state: string; sha256: string } | null
}

export interface CommitInfo { sessions: number; events: number; ms: number }

export class Writer {
  private readonly dirty = new Set<Writable>()
  private running = false

  constructor(
    private readonly lease: Lease,
    private readonly n: Names,
    private readonly onCommitted: (session_id: string, lastSeq: number) => void,
    private readonly onCommit?: (info: CommitInfo) => void,
  ) {}

  schedule(log: Writable): void {
    this.dirty.add(log)
    if (this.running) return
    this.running = true
    // After the synchronous burst that appended: a burst lands in one statement.
    queueMicrotask(() => void this.run())
  }

  private async run() {
    try {
      await this.drain()
    } finally {
      this.running = false
      // Appended while the last statement was failing: start again.
      if (this.dirty.size > 0) this.schedule(this.dirty.values().next().value!)
    }
  }

  private async drain() {
    while (this.dirty.size > 0) {
      const taken: [Writable, Batch][] = []
      for (const log of this.dirty) {
        const batch = log.take()
        if (batch) taken.push([log, batch])
      }
      this.dirty.clear()
      if (taken.length === 0) continue
      const control = taken.filter(([, b]) => b.status !== 'running')
      if (control.length === 0 || control.length === taken.length) await this.commit(taken)
      else {
        await this.commit(control)
        await this.commit(taken.filter(([, b]) => b.status === 'running'))
      }
      await this.snapshots(taken.map(([log]) => log))
    }
  }

  /** One statement for `taken` (one by one when a conflict hides which session caused it). */
  private async commit(taken: [Writable, Batch][]) {
    const started = performance.now()
    try {
      await this.insert(taken.map(([, b]) => b))
      this.onCommit?.({ sessions: taken.length, events: taken.reduce((sum, [, b]) => sum + b.bodies.length, 0), ms: performance.now() - started })
      for (const [log, batch] of taken) this.done(log, batch)
    } catch (error) {
      if (isConflict(error) && taken.length > 1) await this.oneByOne(taken)
      else for (const [log, batch] of taken) log.fail(this.refusal(error, batch))
    }
  }

  private async oneByOne(taken: [Writable, Batch][]) {
    for (const [log, batch] of taken) {
      try {
        await this.insert([batch])
        this.done(log, batch)
      } catch (error) {
        log.fail(this.refusal(error, batch))
      }
    }
  }

  private done(log: Writable, batch: Batch) {
    const lastSeq = batch.firstSeq + batch.bodies.length - 1
    log.committed(lastSeq)
    this.onCommitted(batch.session_id, lastSeq)
  }

  private refusal(error: unknown, batch: Batch): AgentError {
    if (isConflict(error))
      return new AgentError('LOG_CONFLICT', `Session ${batch.session_id} already holds event ${batch.firstSeq}: another writer appended first (a lease was lost and taken over). The events after ${batch.firstSeq - 1} that this process held were not stored; reopen the session.`, { session_id: batch.session_id })
    if (error instanceof AgentError) return error
    return unavailable(error, `appending to session ${batch.session_id}`)
  }

  private insert(batches: Batch[]) {
    const sessions: string[] = []
    const seqs: number[] = []
    const bodies: string[] = []
    for (const b of batches) {
      for (let i = 0; i < b.bodies.length; i++) {
        sessions.push(b.session_id)
        seqs.push(b.firstSeq + i)
        bodies.push(b.bodies[i])
      }
    }
    return this.lease.query(
      `WITH appended AS (
         INSERT INTO ${this.n.events} (session_id, seq, body) SELECT * FROM unnest($1::text[], $2::bigint[], string_to_array($3::text, E'\n'))
       )
       UPDATE ${this.n.sessions} AS s SET last_seq = u.last_seq, status = u.status, updated_at = now()
       FROM unnest($4::text[], $5::bigint[], $6::text[]) AS u(session_id, last_seq, status)
       WHERE s.session_id = u.session_id`,
      // Wire JSON never holds a raw newline, so the bodies travel as one text, split by the server.
      [sessions, seqs, bodies.join('\n'), batches.map((b) => b.session_id), batches.map((b) => b.firstSeq + b.bodies.length - 1), batches.map((b) => b.status)],
      `appending ${bodies.length} events`,
    )
  }

  /** Snapshots are a cache: one that cannot be written is skipped (the connection's loss is handled by the lease). */
  private async snapshots(logs: Writable[]) {
    for (const log of logs) {
      const due = log.snapshotDue()
      if (!due) continue
      await this.lease.query(
        `INSERT INTO ${this.n.snapshots} (session_id, seq, event_id, state, state_sha256) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (session_id) DO UPDATE SET seq = EXCLUDED.seq, event_id = EXCLUDED.event_id, state = EXCLUDED.state, state_sha256 = EXCLUDED.state_sha256, created_at = now()`,
        [log.session_id, due.seq, due.event_id, due.state, due.sha256], `writing a snapshot of session ${log.session_id}`,
      ).catch(() => undefined)
    }
  }
}
