// Reading a session back from PostgreSQL: its row, its snapshot (trusted only when the state
// matches its checksum, was made by this fold (reducers/snapshot.ts), is at the seq it claims, and the event at that seq is still the one it was
// made after), and its events after a position, each checked like a file log's line and required
// to follow the one before it (no gap, no duplicate).
import crypto from 'node:crypto'
import type { QueryResult, QueryResultRow } from 'pg'
import { AgentError } from '../core/errors.js'
import type { AgentEvent } from '../core/events.js'
import { parseStoredEvent } from '../stores/storedEvent.js'
import type { SessionInfo } from '../hub/types.js'
import { notFound, titleOf } from '../stores/sessions.js'
import { snapshotState } from '../../reducers/snapshot.js'
import type { AgentState, ReplyStatus } from '../../reducers/state.js'
import { unavailable } from './errors.js'
import type { Names } from './sql.js'

/** What runs a statement: a pool, a client, or the store's control lane (listener.ts). */
export interface Queryable {
  query<R extends QueryResultRow>(text: string, values?: unknown[]): Promise<QueryResult<R>>
}

export const sha256 = (text: string): string => crypto.createHash('sha256').update(text).digest('hex')

interface SessionRow { session_id: string; created_at: Date; updated_at: Date; status: ReplyStatus; last_seq: string; metadata: Record<string, unknown>; first_message?: string | null }

/** A session's row: never `damaged` (the row is what listing reads). */
export type RowInfo = SessionInfo & { status: ReplyStatus }

export const toInfo = (row: SessionRow): RowInfo => {
  const title = row.first_message ? storedTitle(row.first_message) : undefined
  return {
    session_id: row.session_id, created_at: row.created_at.toISOString(), updated_at: row.updated_at.toISOString(),
    status: row.status, last_seq: Number(row.last_seq), metadata: row.metadata, ...(title === undefined ? {} : { title }),
  }
}

/** The title in a stored event's JSON; undefined when the row is not a user message or is damaged (reading the session says so). */
const storedTitle = (body: string): string | undefined => {
  try {
    return titleOf(JSON.parse(body) as AgentEvent)
  } catch {
    return undefined
  }
}

/** The stored JSON of a session's first user message (its title), for a query on `${n.sessions} s`: an index range scan
 * over the session's first events only (a log starts with its first user message; without the bound the planner may
 * read every event of a long session to sort them), matching the text (a cast to jsonb would fail the whole listing
 * on one damaged row). */
export const firstMessageColumn = (n: Names): string =>
  `(SELECT e.body FROM ${n.events} e WHERE e.session_id = s.session_id AND e.seq <= ${TITLE_WITHIN} AND e.body LIKE '%"type":"USER_MESSAGE"%' ORDER BY e.seq LIMIT 1) AS first_message`

/** How many first events of a session are searched for its title. */
const TITLE_WITHIN = 16

export const SESSION_COLUMNS = 'session_id, created_at, updated_at, status, last_seq, metadata'

export const query = async <R extends object>(db: Queryable, n: Names, doing: string, text: string, values: unknown[] = []): Promise<R[]> => {
  try {
    return (await db.query<R>(text, values)).rows
  } catch (error) {
    throw unavailable(error, doing)
  }
}

export const loadInfo = async (db: Queryable, n: Names, session_id: string): Promise<RowInfo> => {
  const [row] = await query<SessionRow>(db, n, `reading session ${session_id}`, `SELECT ${SESSION_COLUMNS}, ${firstMessageColumn(n)} FROM ${n.sessions} s WHERE session_id = $1`, [session_id])
  if (!row) throw notFound(session_id)
  return toInfo(row)
}

/** The events of a session after `fromSeq`, parsed and checked; `texts` gets their stored JSON when given. */
export const loadEvents = async (db: Queryable, n: Names, session_id: string, fromSeq: number, texts?: string[]): Promise<AgentEvent[]> => {
  const rows = await query<{ seq: string; body: string }>(db, n, `reading the events of session ${session_id}`,
    `SELECT seq, body FROM ${n.events} WHERE session_id = $1 AND seq > $2 ORDER BY seq`, [session_id, fromSeq])
  const events: AgentEvent[] = []
  let expected = fromSeq + 1
  for (const { seq, body } of rows) {
    const at = Number(seq)
    if (at !== expected) throw damaged(session_id, at, `event ${expected} is missing (the next stored is ${at})`)
    events.push(parseStoredEvent(body, at, (why) => damaged(session_id, at, why)))
    texts?.push(body)
    expected++
  }
  return events
}

const damaged = (session_id: string, seq: number, why: string) =>
  new AgentError('INVALID_LOG', `Event ${seq} of session ${session_id} is damaged: ${why}. The events table was changed behind the store's back; export what is readable (agentlog export) and repair it.`, { session_id, seq })

export interface Snapshot { seq: number; state: AgentState }

/** The session's snapshot when it can be trusted, else null (`onIgnored` says why). */
export const loadSnapshot = async (db: Queryable, n: Names, session_id: string, lastSeq: number, onIgnored?: (why: string) => void): Promise<Snapshot | null> => {
  const [row] = await query<{ seq: string; event_id: string; state: string; state_sha256: string; body: string | null }>(db, n, `reading the snapshot of session ${session_id}`,
    `SELECT s.seq, s.event_id, s.state, s.state_sha256, e.body FROM ${n.snapshots} s LEFT JOIN ${n.events} e ON e.session_id = s.session_id AND e.seq = s.seq WHERE s.session_id = $1`, [session_id])
  if (!row) return null
  const seq = Number(row.seq)
  const ignore = (why: string) => {
    onIgnored?.(why)
    return null
  }
  if (seq > lastSeq || row.body === null) return ignore(`stale: made at event ${seq}, which the log does not hold`)
  if (sha256(row.state) !== row.state_sha256) return ignore('damaged: the state does not match its checksum')
  const resumed = snapshotState(row.state, seq)
  if ('ignored' in resumed) return ignore(resumed.ignored)
  let eventId: unknown
  try {
    eventId = (JSON.parse(row.body) as { id?: unknown }).id
  } catch {
    return ignore(`stale: event ${seq} is not JSON`)
  }
  if (eventId !== row.event_id) return ignore(`stale: event ${seq} is not the one it was made after`)
  return { seq, state: resumed.state }
}
