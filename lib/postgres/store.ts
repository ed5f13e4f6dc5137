// postgresStore: sessions in PostgreSQL, for many processes. Reads go through the pool; the
// sessions this process owns are leased and written on one dedicated connection (lease.ts,
// writer.ts); one LISTEN connection wakes followers and routed requests (listener.ts, follow.ts,
// routing.ts). `migrate()` creates or upgrades the tables. Pass the application's `pg.Pool`, or a
// connection string (the store then makes a pool and ends it on close).
import { checkKnownKeys, optionKeys } from '../core/strictOptions.js'
import pg, { type Pool } from 'pg'
import { AgentError, describe } from '../core/errors.js'
import type { SessionInfo, SessionStore } from '../hub/types.js'
import { checkMetadata, checkPage, checkSessionId, pageOf, sessionBusy, sessionExists, newSessionId } from '../stores/sessions.js'
import { replay } from '../../reducers/root.js'
import { Followers } from './follow.js'
import { Lease } from './lease.js'
import { Listener } from './listener.js'
import { firstMessageColumn, loadEvents, loadInfo, loadSnapshot, query, SESSION_COLUMNS, toInfo } from './load.js'
import { pgLog, type PgLog } from './log.js'
import { migrate } from './migrations.js'
import { pgRouting } from './routing.js'
import { leaseKey, names } from './sql.js'
import { Writer, type CommitInfo } from './writer.js'

export interface PostgresStoreOptions {
  /** The application's pool (the store keeps two of its connections: the lease and LISTEN). */
  pool?: Pool
  /** Or a connection string: the store makes its own pool. */
  connectionString?: string
  /** The schema of the store's tables (default "agentlog"). */
  schema?: string
  /** A snapshot at a reply's end or pause once this many events passed (default 1000; false: none). */
  snapshots?: false | { every?: number }
  /** Called after each group commit (figures for benchmarks and monitoring). */
  onCommit?: (info: CommitInfo) => void
  /** A snapshot that was not trusted on open, and why. */
  onSnapshotIgnored?: (session_id: string, why: string) => void
}

export interface PostgresStore extends SessionStore {
  readonly schema: string
  /** Creates or upgrades the store's tables (safe from several processes at once); returns the versions applied. */
  migrate(): Promise<number[]>
  open(session_id: string): Promise<PgLog>
  /** The backend pid of the connection holding this process's leases (specs terminate it). */
  leasePid(): Promise<number>
}

const POSTGRES_OPTION_KEYS = optionKeys<PostgresStoreOptions>({ pool: true, connectionString: true, schema: true, snapshots: true, onCommit: true, onSnapshotIgnored: true })

const checkOptions = (options: PostgresStoreOptions) => {
  if (typeof options !== 'object' || options === null) throw new AgentError('INVALID_OPTION', `postgresStore expects { pool } or { connectionString }; received ${describe(options)}.`)
  checkKnownKeys('postgresStore', options, POSTGRES_OPTION_KEYS)
  const { pool, connectionString, snapshots } = options
  if (typeof snapshots === 'object' && snapshots !== null) checkKnownKeys('postgresStore snapshots', snapshots, ['every'])
  if (!pool === !connectionString) throw new AgentError('INVALID_OPTION', 'postgresStore: give exactly one of pool (a pg.Pool) and connectionString (postgres://user@host:port/database).')
  if (pool && typeof (pool as { connect?: unknown }).connect !== 'function') throw new AgentError('INVALID_OPTION', `postgresStore: pool must be a pg.Pool; received ${describe(pool)}.`)
  const max = (pool as { options?: { max?: number } } | undefined)?.options?.max
  if (max !== undefined && max < 3) throw new AgentError('INVALID_OPTION', `postgresStore: the pool must allow at least 3 connections (the store keeps two: its lease and LISTEN); it allows ${max}.`)
  if (connectionString !== undefined && (typeof connectionString !== 'string' || !/^postgres(ql)?:\/\//.test(connectionString)))
    throw new AgentError('INVALID_OPTION', `postgresStore: connectionString must be a URL like postgres://user@host:5432/database; received ${describe(connectionString)}.`)
  const every = snapshots === false ? 0 : snapshots?.every ?? 1000
  if (!Number.isInteger(every) || every < 0) throw new AgentError('INVALID_OPTION', `postgresStore: snapshots.every must be a whole number of at least 1; received ${describe(every)}.`)
  return every
}

export const postgresStore = (options: PostgresStoreOptions): PostgresStore => {
  const every = checkOptions(options)
  const schema = options.schema ?? 'agentlog'
  const n = names(schema)
  const ownPool = !options.pool
  const pool = options.pool ?? new pg.Pool({ connectionString: options.connectionString, connectionTimeoutMillis: 5000 })
  // An idle pooled connection that dies must not crash the process; the next query reconnects.
  if (ownPool) pool.on('error', () => undefined)
  const owned = new Map<string, PgLog | null>()
  const lease = new Lease(pool, schema, (error) => {
    for (const log of owned.values()) log?.fail(error)
  })
  const listener = new Listener(pool, n)
  const followers = new Followers(pool, n, listener)
  const writer = new Writer(lease, n, (session_id) => followers.poke(session_id), options.onCommit)
  let closed = false

  const checkOpen = () => {
    if (closed) throw new AgentError('CLOSED', 'The session store is closed; create a new one.')
  }
  const check = (session_id: string) => {
    checkOpen()
    return checkSessionId(session_id)
  }

  const open = async (session_id: string): Promise<PgLog> => {
    const id = check(session_id)
    if (owned.has(id)) throw sessionBusy(id, 'another agent in this process', true)
    owned.set(id, null)
    let locked = false
    try {
      locked = await lease.lock(id)
      if (!locked) throw sessionBusy(id, 'another process')
      const info = await loadInfo(pool, n, id)
      const snapshot = every ? await loadSnapshot(pool, n, id, info.last_seq, (why) => options.onSnapshotIgnored?.(id, why)) : null
      const events = await loadEvents(pool, n, id, snapshot?.seq ?? 0)
      const log = pgLog({
        session_id: id, snapshot, events, status: info.status, every,
        schedule: (l) => writer.schedule(l),
        // The lock goes with the lease connection, which a pause does not lose; its death between this
        // proof (pg_locks, through the pool) and the side effect is the window that remains (README).
        confirm: () => lease.confirm(id),
        release: async () => {
          owned.delete(id)
          await lease.unlock(id)
        },
      })
      owned.set(id, log)
      return log
    } catch (error) {
      owned.delete(id)
      if (locked) await lease.unlock(id)
      throw error
    }
  }

  return {
    schema,
    migrate: () => migrate(pool, schema),
    open,
    leasePid: () => lease.pid(),
    async list(o) {
      checkOpen()
      const { limit, after } = checkPage(o)
      // Newest first, then the id in byte order; the cursor keeps the start time to the microsecond.
      const rows = await query<Parameters<typeof toInfo>[0] & { started: string }>(pool, n, 'listing sessions',
        `SELECT ${SESSION_COLUMNS}, ${firstMessageColumn(n)}, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS started
         FROM ${n.sessions} s WHERE $1::timestamptz IS NULL OR (created_at <= $1 AND (created_at < $1 OR session_id COLLATE "C" > $2))
         ORDER BY created_at DESC, session_id COLLATE "C" LIMIT $3`, [after?.created_at ?? null, after?.session_id ?? null, limit + 1])
      return pageOf(rows.map(toInfo), limit, (i) => ({ created_at: rows[i].started, session_id: rows[i].session_id }))
    },
    async create(o = {}) {
      const id = check(o.session_id ?? newSessionId())
      const metadata = checkMetadata(o.metadata)
      const [row] = await query<Parameters<typeof toInfo>[0]>(pool, n, `creating session ${id}`,
        `INSERT INTO ${n.sessions} (session_id, metadata) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING ${SESSION_COLUMNS}`, [id, JSON.stringify(metadata)])
      if (!row) throw sessionExists(id)
      return toInfo(row)
    },
    async read(session_id, { fromSeq = 0 } = {}) {
      const id = check(session_id)
      await loadInfo(pool, n, id)
      return loadEvents(pool, n, id, fromSeq)
    },
    follow: (session_id, { fromSeq = 0 } = {}) => followers.follow(check(session_id), fromSeq),
    info: async (session_id): Promise<SessionInfo> => loadInfo(pool, n, check(session_id)),
    async state(session_id) {
      const id = check(session_id)
      const info = await loadInfo(pool, n, id)
      const snapshot = every ? await loadSnapshot(pool, n, id, info.last_seq) : null
      return replay(await loadEvents(pool, n, id, snapshot?.seq ?? 0), snapshot?.state)
    },
    // Under the session's lease, reserved in `owned` first: the lease is one connection's lock,
    // which PostgreSQL lets that connection take twice, so an open here must not slip in meanwhile.
    async delete(session_id) {
      const id = check(session_id)
      if (owned.has(id)) throw sessionBusy(id, 'an agent in this process', true)
      owned.set(id, null)
      let locked = false
      try {
        locked = await lease.lock(id)
        if (!locked) throw sessionBusy(id, 'another process')
        await loadInfo(pool, n, id)
        await query(pool, n, `deleting session ${id}`,
          `WITH e AS (DELETE FROM ${n.events} WHERE session_id = $1), s AS (DELETE FROM ${n.snapshots} WHERE session_id = $1), r AS (DELETE FROM ${n.requests} WHERE session_id = $1)
           DELETE FROM ${n.sessions} WHERE session_id = $1`, [id])
      } finally {
        if (locked) await lease.unlock(id)
        owned.delete(id)
      }
    },
    // Running sessions whose lease no connection holds (a session-level advisory lock on a bigint
    // shows in pg_locks as classid = its high 32 bits, objid = its low 32 bits, objsubid = 1).
    async orphans({ limit = 100 } = {}) {
      checkOpen()
      const rows = await query<{ session_id: string }>(pool, n, 'looking for replies whose owner died',
        `SELECT s.session_id FROM ${n.sessions} s WHERE s.status = 'running' AND NOT EXISTS (
           SELECT 1 FROM pg_locks l WHERE l.locktype = 'advisory' AND l.objsubid = 1 AND l.granted
             AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
             AND ((l.classid::bigint << 32) | l.objid::bigint) = hashtextextended($1 || s.session_id, 0))
         LIMIT $2`, [leaseKey(schema, ''), limit])
      return rows.map((r) => r.session_id).filter((id) => !owned.has(id))
    },
    routing: pgRouting(pool, n, listener),
    async close() {
      if (closed) return
      closed = true
      await Promise.all([...owned.values()].map((log) => log?.close()))
      listener.close()
      lease.close()
      if (ownPool) await pool.end()
    },
  }
}
