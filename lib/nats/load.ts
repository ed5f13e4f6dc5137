// Reading a session back from JetStream. A session's events are the messages on its subject, each
// a batch of events as JSON lines with headers naming the first and last event seq and the status
// after them. `info` is the session's KV record plus its last message; `locate` finds the message
// holding an event by binary search over stream positions (a few round trips, whatever the length);
// `readEvents` reads from there with an ordered consumer. Events are checked like a file log's
// lines and must follow each other (no gap, no duplicate). A snapshot is trusted only when its
// state matches its checksum and was made by this fold (reducers/snapshot.ts), and the event it was made after is still the one at its seq.
import crypto from 'node:crypto'
// (next_by_subj is accepted by the stream's message API since nats-server 2.9; the client types it for direct gets only.)
import { DeliverPolicy, type MsgRequest, type StoredMsg } from '@nats-io/jetstream'
import { sleep } from '../core/abort.js'
import { AgentError } from '../core/errors.js'
import type { AgentEvent } from '../core/events.js'
import type { SessionInfo } from '../hub/types.js'
import { notFound } from '../stores/sessions.js'
import { parseStoredEvent } from '../stores/storedEvent.js'
import { snapshotState } from '../../reducers/snapshot.js'
import type { AgentState, ReplyStatus } from '../../reducers/state.js'
import type { Nats } from './connection.js'
import { unavailable } from './errors.js'
import type { Names } from './names.js'

export const FIRST = 'Agentlog-First'
export const LAST = 'Agentlog-Last'
export const STATUS = 'Agentlog-Status'

export const sha256 = (text: string): string => crypto.createHash('sha256').update(text).digest('hex')

/** A message of a session's subject, as far as positions go. */
export interface Position { streamSeq: number; first: number; last: number; status: ReplyStatus; time: string }

const positionOf = (m: StoredMsg): Position => ({
  streamSeq: m.seq, first: Number(m.header.get(FIRST)), last: Number(m.header.get(LAST)), status: (m.header.get(STATUS) || 'idle') as ReplyStatus, time: m.time.toISOString(),
})

export const attempt = async <T>(doing: string, run: () => Promise<T>): Promise<T> => {
  try {
    return await run()
  } catch (error) {
    throw unavailable(error, doing)
  }
}

/** The session's last message, or null when it has no events. */
export const lastPosition = (nats: Nats, n: Names, key: string): Promise<Position | null> =>
  attempt('reading the last event of a session', async () => {
    const m = await nats.jsm.streams.getMessage(n.stream, { last_by_subj: n.events(key) })
    return m ? positionOf(m) : null
  })

interface SessionRecord { created_at: string; metadata: Record<string, unknown> }

export const sessionRecord = (session_id: string, metadata: Record<string, unknown>): string =>
  JSON.stringify({ created_at: new Date().toISOString(), metadata } satisfies SessionRecord)

/** When a session started (its record's created_at); null when it is gone. */
export const startedAt = async (nats: Nats, session_id: string, key: string): Promise<string | null> => {
  const entry = await attempt(`reading session ${session_id}`, () => nats.sessions.get(key))
  return entry && entry.operation === 'PUT' ? entry.json<SessionRecord>().created_at : null
}

export const loadInfo = async (nats: Nats, n: Names, session_id: string, key: string): Promise<SessionInfo & { status: ReplyStatus; position: Position | null }> => {
  const [entry, position] = await Promise.all([attempt(`reading session ${session_id}`, () => nats.sessions.get(key)), lastPosition(nats, n, key)])
  if (!entry || entry.operation !== 'PUT') throw notFound(session_id)
  const record = entry.json<SessionRecord>()
  return {
    session_id, created_at: record.created_at, updated_at: position?.time ?? record.created_at,
    status: position?.status ?? 'idle', last_seq: position?.last ?? 0, metadata: record.metadata, position,
  }
}

/**
 * The stream position to read from for the events after `fromSeq`: the message holding event
 * fromSeq + 1 (null when the session holds no event after `fromSeq`).
 */
export const locate = async (nats: Nats, n: Names, key: string, fromSeq: number, last: Position | null): Promise<number | null> => {
  if (!last || last.last <= fromSeq) return null
  if (fromSeq === 0) return 1
  if (last.first <= fromSeq + 1) return last.streamSeq
  const next = (seq: number) => attempt('locating an event', async () => {
    const m = await nats.jsm.streams.getMessage(n.stream, { next_by_subj: n.events(key), seq } as unknown as MsgRequest)
    return m ? positionOf(m) : last
  })
  // The smallest position whose next message holds an event after fromSeq.
  let lo = 1
  let hi = last.streamSeq
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2)
    const m = await next(mid)
    if (m.last > fromSeq) hi = Math.min(mid, m.streamSeq)
    else lo = m.streamSeq + 1
  }
  return lo
}

/** Parses one message's events (those after `after`), checked and in order; `expected` is the next seq. */
export const parseMessage = (session_id: string, body: string, first: number, after: number): AgentEvent[] => {
  const events: AgentEvent[] = []
  const lines = body.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const at = first + i
    if (at <= after) continue
    events.push(parseStoredEvent(lines[i], at, (why) => damaged(session_id, at, why)))
  }
  return events
}

export const damaged = (session_id: string, seq: number, why: string) =>
  new AgentError('INVALID_LOG', `Event ${seq} of session ${session_id} is damaged: ${why}. The stream was changed behind the store's back; export what is readable (agentlog export) and repair it.`, { session_id, seq })

/**
 * Calls `each` with the messages of the session's subject from stream position `start`, in order;
 * resolves after the one at `untilStreamSeq` (or never, when following: `untilStreamSeq` Infinity).
 * Returns a stop function through `onStop`.
 */
interface Message { seq: number; first: number; last: number; body: string }

export const consume = async (nats: Nats, n: Names, key: string, start: number, each: (m: Message) => boolean | void, signal?: { stopped: boolean; stop?: () => void }) => {
  const consumer = await nats.js.consumers.get(n.stream, { filter_subjects: n.events(key), deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: start })
  // Short pulls with heartbeats: a consumer on a node that died is noticed and recreated within seconds.
  const messages = await consumer.consume({ expires: 2000 })
  if (signal) signal.stop = () => void messages.stop()
  try {
    for await (const m of messages) {
      if (signal?.stopped) break
      const done = each({ seq: m.seq, first: Number(m.headers?.get(FIRST)), last: Number(m.headers?.get(LAST)), body: m.string() })
      if (done) break
    }
  } finally {
    messages.stop()
  }
}

/**
 * The session's events after `fromSeq` (its last message is `last`), read in one pass by an ordered
 * consumer; when that fails (a consumer not created while the cluster moves a leader), read again
 * message by message from the stream's leader.
 */
export const readEvents = async (nats: Nats, n: Names, session_id: string, key: string, fromSeq: number, last: Position | null): Promise<AgentEvent[]> => {
  for (let pass = 1; ; pass++) {
    try {
      return await readPass(nats, n, session_id, key, fromSeq, last, pass === 1 ? consume : walk)
    } catch (error) {
      if (error instanceof AgentError || pass === READ_PASSES) throw unavailable(error, `reading the events of session ${session_id}`)
      await sleep(250 * pass)
    }
  }
}

const READ_PASSES = 4

/** Like `consume`, one message at a time through the stream's message API, up to `last`. */
const walk = (last: number) => async (nats: Nats, n: Names, key: string, start: number, each: (m: Message) => boolean | void) => {
  for (let at = start; at <= last;) {
    const m = await nats.jsm.streams.getMessage(n.stream, { next_by_subj: n.events(key), seq: at } as unknown as MsgRequest)
    if (!m) return
    const p = positionOf(m)
    if (each({ seq: p.streamSeq, first: p.first, last: p.last, body: m.string() })) return
    at = m.seq + 1
  }
}

const readPass = async (nats: Nats, n: Names, session_id: string, key: string, fromSeq: number, last: Position | null, reader: typeof consume | typeof walk): Promise<AgentEvent[]> => {
  const read = reader === walk ? walk(last?.streamSeq ?? 0) : consume
  const start = await locate(nats, n, key, fromSeq, last)
  if (start === null) return []
  const events: AgentEvent[] = []
  let expected = fromSeq + 1
  await read(nats, n, key, start, (m) => {
    if (m.last >= expected) {
      if (m.first > expected) throw damaged(session_id, m.first, `event ${expected} is missing (the next stored is ${m.first})`)
      for (const event of parseMessage(session_id, m.body, m.first, expected - 1)) events.push(event)
      expected = m.last + 1
    }
    return m.seq >= last!.streamSeq
  })
  return events
}

export interface Snapshot { seq: number; state: AgentState }
interface SnapshotRecord { seq: number; event_id: string; stream_seq: number; state: string; sha256: string }

/** The session's snapshot when it can be trusted, else null (`onIgnored` says why). */
export const loadSnapshot = async (nats: Nats, n: Names, session_id: string, key: string, lastSeq: number, onIgnored?: (why: string) => void): Promise<Snapshot & { streamSeq: number } | null> => {
  const entry = await attempt(`reading the snapshot of session ${session_id}`, () => nats.snapshots.get(key))
  if (!entry || entry.operation !== 'PUT') return null
  const ignore = (why: string) => {
    onIgnored?.(why)
    return null
  }
  let record: SnapshotRecord
  try {
    record = entry.json<SnapshotRecord>()
  } catch {
    return ignore('damaged: it is not JSON')
  }
  const { seq } = record
  if (!(seq <= lastSeq)) return ignore(`stale: made at event ${seq}, which the log does not hold`)
  if (sha256(record.state) !== record.sha256) return ignore('damaged: the state does not match its checksum')
  const resumed = snapshotState(record.state, seq)
  if ('ignored' in resumed) return ignore(resumed.ignored)
  const m = await attempt('reading a snapshot\'s event', () => nats.jsm.streams.getMessage(n.stream, { seq: record.stream_seq })).catch(() => null)
  if (!m || m.subject !== n.events(key)) return ignore(`stale: event ${seq} is not in the log`)
  const at = positionOf(m)
  if (!(at.first <= seq && seq <= at.last)) return ignore(`stale: event ${seq} is not where it was`)
  let eventId: unknown
  try {
    eventId = (JSON.parse(m.string().split('\n')[seq - at.first]) as { id?: unknown }).id
  } catch {
    return ignore(`stale: event ${seq} is not JSON`)
  }
  if (eventId !== record.event_id) return ignore(`stale: event ${seq} is not the one it was made after`)
  return { seq, state: resumed.state, streamSeq: record.stream_seq }
}

/** The stored snapshot record (written after a commit; a cache, so failures are ignored). */
export const snapshotRecord = (due: { seq: number; event_id: string; state: string; sha256: string }, streamSeq: number): string =>
  JSON.stringify({ ...due, stream_seq: streamSeq } satisfies SnapshotRecord)
