// Appending to JetStream: each owned session has one publish in flight at a time; the events
// appended meanwhile go together in the next (its group commit), as one message of JSON lines
// (several when they exceed the server's payload limit). Every publish names the session's last
// stream position it expects (Nats-Expected-Last-Subject-Sequence), so a writer that lost its
// lease to another process can never append after it: JetStream refuses it and the log fails with
// LOG_CONFLICT. An event is committed once JetStream acknowledged it (with `replicas: 3`, once a
// majority of the cluster stored it). Snapshots are written to KV after a commit, when due.
import { headers } from '@nats-io/transport-node'
import { sleep } from '../core/abort.js'
import { AgentError } from '../core/errors.js'
import type { Batch, CommitInfo, Writable } from '../postgres/writer.js'
import type { Nats } from './connection.js'
import { isConflict, unavailable } from './errors.js'
import { FIRST, LAST, lastPosition, snapshotRecord, STATUS } from './load.js'
import { keyOf, type Names } from './names.js'

/** Room kept for a message's headers under the payload limit. */
const HEADER_ROOM = 1024

/** How long a publish is retried while the server or the cluster recovers. */
const RETRY_FOR_MS = 15_000

/** `id` makes message ids unique to one open log: a session deleted and created again under its id
 * (within JetStream's duplicate window) must not have its first batch dropped as a repeat. */
interface Writing { running: boolean; lastStreamSeq: number; id: string }

export class Writer {
  private readonly logs = new Map<Writable, Writing>()

  constructor(
    private readonly nats: () => Nats,
    private readonly n: Names,
    private readonly onCommit?: (info: CommitInfo) => void,
  ) {}

  /** Starts writing a log whose subject's last message is at `lastStreamSeq` (0: none). */
  add(log: Writable, lastStreamSeq: number): void {
    this.logs.set(log, { running: false, lastStreamSeq, id: crypto.randomUUID() })
  }

  remove(log: Writable): void {
    this.logs.delete(log)
  }

  schedule(log: Writable): void {
    const writing = this.logs.get(log)
    if (!writing || writing.running) return
    writing.running = true
    // After the synchronous burst that appended: a burst lands in one message.
    queueMicrotask(() => void this.run(log, writing))
  }

  private async run(log: Writable, writing: Writing) {
    try {
      for (let batch = log.take(); batch; batch = log.take()) {
        const started = performance.now()
        try {
          for (const chunk of this.chunks(batch)) writing.lastStreamSeq = await this.publish(chunk, writing)
        } catch (error) {
          log.fail(await this.refusal(error, batch, writing))
          return
        }
        this.onCommit?.({ sessions: 1, events: batch.bodies.length, ms: performance.now() - started })
        log.committed(batch.firstSeq + batch.bodies.length - 1)
        await this.snapshot(log, writing.lastStreamSeq)
      }
    } finally {
      writing.running = false
    }
  }

  /** The batch as messages under the payload limit. */
  private *chunks(batch: Batch): Generator<Batch> {
    const limit = this.nats().maxPayload - HEADER_ROOM
    let start = 0
    let size = 0
    for (let i = 0; i < batch.bodies.length; i++) {
      const bytes = Buffer.byteLength(batch.bodies[i]) + 1
      if (bytes > limit)
        throw new AgentError('LOG_UNAVAILABLE', `Event ${batch.firstSeq + i} of session ${batch.session_id} is ${bytes} bytes, more than the NATS server's max_payload (${limit + HEADER_ROOM}); raise max_payload in the server's configuration (up to 64 MB).`, { session_id: batch.session_id })
      if (size + bytes > limit) {
        yield { ...batch, firstSeq: batch.firstSeq + start, bodies: batch.bodies.slice(start, i) }
        start = i
        size = 0
      }
      size += bytes
    }
    yield start === 0 ? batch : { ...batch, firstSeq: batch.firstSeq + start, bodies: batch.bodies.slice(start) }
  }

  /**
   * Publishes one message; a publish that timed out or found no stream leader (a cluster electing
   * one after a node died) is sent again with the same message id, which JetStream stores once.
   */
  private async publish(batch: Batch, { lastStreamSeq, id }: Writing): Promise<number> {
    const h = headers()
    h.set(FIRST, String(batch.firstSeq))
    h.set(LAST, String(batch.firstSeq + batch.bodies.length - 1))
    h.set(STATUS, batch.status)
    const msgID = `${id}.${batch.firstSeq}`
    const body = batch.bodies.join('\n')
    const deadline = Date.now() + RETRY_FOR_MS
    for (;;) {
      try {
        const ack = await this.nats().js.publish(this.n.events(keyOf(batch.session_id)), body, { headers: h, msgID, timeout: 2000, expect: { lastSubjectSequence: lastStreamSeq } })
        return ack.seq
      } catch (error) {
        if (isConflict(error) || Date.now() > deadline || this.nats().nc.isClosed()) throw error
        // The stream deleted by an operator: made again (empty), the publish is then refused as purged.
        await this.nats().repair().catch(() => undefined)
        await sleep(200)
      }
    }
  }

  /** What refused the batch, named: another writer, or events removed behind the store's back (the subject's last message is older than the last this log wrote). */
  private async refusal(error: unknown, batch: Batch, writing: Writing): Promise<AgentError> {
    if (!isConflict(error)) return unavailable(error, `appending to session ${batch.session_id}`)
    const last = await lastPosition(this.nats(), this.n, keyOf(batch.session_id)).catch(() => undefined)
    if (last !== undefined && (last?.streamSeq ?? 0) < writing.lastStreamSeq)
      return new AgentError('LOG_CONFLICT', `The events of session ${batch.session_id} were removed from the stream behind the store's back (a purge of the stream ${this.n.stream} or of the session's subject, or the stream deleted), so event ${batch.firstSeq} and those after it were not stored. Restore the stream from a backup, or delete the session (agentlog export first keeps what this process still holds).`, { session_id: batch.session_id, purged: true })
    return new AgentError('LOG_CONFLICT', `Session ${batch.session_id} was appended to by another writer before event ${batch.firstSeq} (this process lost its lease and another took the session over). The events after ${batch.firstSeq - 1} that this process held were not stored; reopen the session.`, { session_id: batch.session_id })
  }

  /** Snapshots are a cache: one that cannot be written (too large, the server away) is skipped. */
  private async snapshot(log: Writable, streamSeq: number) {
    const due = log.snapshotDue()
    if (!due) return
    const record = snapshotRecord(due, streamSeq)
    if (Buffer.byteLength(record) > this.nats().maxPayload - HEADER_ROOM) return
    await this.nats().snapshots.put(keyOf(log.session_id), record).catch(() => undefined)
  }
}
