// The store's lease connection: one connection of the pool kept for the store's life. It holds a
// session-level advisory lock per session this process owns (PostgreSQL releases them all by
// itself when the connection dies, so a crashed owner frees its sessions at once) and carries the
// appends of those sessions, so a write can never outlive its lock. Losing it fails every owned log.
import type { Pool, PoolClient } from 'pg'
import { AgentError } from '../core/errors.js'
import { isConnectionLoss, unavailable } from './errors.js'
import { leaseKey } from './sql.js'

export class Lease {
  private client: PoolClient | null = null
  private connecting: Promise<PoolClient> | null = null
  private closed = false
  /** The backend pid of the lease connection (read when it connects), whose advisory locks are the leases. */
  private backend: number | null = null
  /** One statement at a time on the connection (node-postgres queues, but will stop doing so). */
  private queue: Promise<void> = Promise.resolve()
  /** The sessions whose lock this process took and has not released (a proof for one released here proves nothing lost). */
  private readonly locked = new Set<string>()

  constructor(
    private readonly pool: Pool,
    private readonly schema: string,
    private readonly onLost: (error: AgentError) => void,
  ) {}

  private connect(): Promise<PoolClient> {
    if (this.closed) return Promise.reject(new AgentError('CLOSED', 'The session store is closed; create a new one.'))
    if (this.client) return Promise.resolve(this.client)
    this.connecting ??= this.pool.connect().then(async (client) => {
      const lost = (error: unknown) => this.lost(client, error ?? new Error('Connection terminated'))
      client.on('error', lost)
      client.on('end', () => lost(new Error('Connection terminated')))
      this.backend = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid
      this.client = client
      this.connecting = null
      return client
    }, (error: unknown) => {
      this.connecting = null
      throw unavailable(error, 'connecting')
    })
    return this.connecting
  }

  private lost(client: PoolClient, error: unknown) {
    if (this.client !== client) return
    this.client = null
    this.backend = null
    this.locked.clear() // the connection's locks died with it
    client.release(true)
    this.onLost(unavailable(error, 'holding the sessions\' leases (the connection was lost; every reply it carried ends here)'))
  }

  /** Runs a statement on the lease connection, after the ones before it; a lost connection fails every owned log. */
  query<R extends object>(text: string, values: unknown[], doing: string): Promise<R[]> {
    const run = this.queue.then(() => this.run<R>(text, values, doing))
    this.queue = run.then(() => undefined, () => undefined)
    return run
  }

  private async run<R extends object>(text: string, values: unknown[], doing: string): Promise<R[]> {
    const client = await this.connect()
    try {
      return (await client.query<R>(text, values)).rows
    } catch (error) {
      if (isConnectionLoss(error)) this.lost(client, error)
      throw unavailable(error, doing)
    }
  }

  /** Takes the session's lease; false when another connection (another process) holds it. */
  async lock(session_id: string): Promise<boolean> {
    const [row] = await this.query<{ locked: boolean }>('SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS locked', [leaseKey(this.schema, session_id)], `taking the lease of session ${session_id}`)
    if (row.locked) this.locked.add(session_id)
    return row.locked
  }

  async unlock(session_id: string): Promise<void> {
    this.locked.delete(session_id)
    if (!this.client) return // the connection is gone, and its locks with it
    await this.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [leaseKey(this.schema, session_id)], `releasing the lease of session ${session_id}`).catch(() => undefined)
  }

  /**
   * Proves the session's advisory lock is still held by the lease connection's backend: asked of
   * pg_locks through the pool, so it never waits behind the lease connection's writes (a slow
   * commit must not hold back a model call). A lock that is gone means the connection died unseen:
   * every owned log fails.
   */
  async confirm(session_id: string): Promise<void> {
    const client = this.client
    const backend = this.backend
    if (!client || backend === null) throw new AgentError('LOG_UNAVAILABLE', `The lease connection is gone; session ${session_id} may be owned by another process now; reopen it.`, { session_id })
    let held: boolean
    try {
      const { rows } = await this.pool.query<{ held: boolean }>(`SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 1 AND pid = $1
        AND ((classid::bigint << 32) | objid::bigint) = hashtextextended($2, 0)) AS held`, [backend, leaseKey(this.schema, session_id)])
      held = rows[0].held
    } catch (error) {
      throw unavailable(error, `proving this process still holds the lease of session ${session_id}`)
    }
    if (held) return
    // Released here meanwhile (the session closed or is being deleted): that log is over, the
    // connection is fine; only a lock this process still counts as taken and does not hold is a loss.
    if (!this.locked.has(session_id)) throw new AgentError('LOG_CONFLICT', `Session ${session_id} was let go by this process; nothing more of it is done here; reopen the session.`, { session_id })
    const error = new AgentError('LOG_CONFLICT', `This process no longer holds the lease of session ${session_id} (its lease connection lost its locks unseen); another process may own it now. Nothing more of it is done here; reopen the session.`, { session_id })
    this.lost(client, error)
    throw error
  }

  /** The backend pid of the lease connection (specs terminate it), or null when not connected. */
  async pid(): Promise<number> {
    const [row] = await this.query<{ pid: number }>('SELECT pg_backend_pid() AS pid', [], 'reading the backend pid')
    return row.pid
  }

  close(): void {
    this.closed = true
    const client = this.client
    this.client = null
    client?.release(true)
  }
}
