// A LISTEN connection: one connection of the pool, opened on first use, that hears the channels it
// is made for and hands each payload to whoever waits for it. The store keeps two: one for the
// append pointers ("SESSION_ID LAST_SEQ", the followers' bulk) and one for routed requests (the
// control lane: a Stop's pointer never queues behind appends, and `query` runs the routing
// statements on that connection, never behind the pool's follower reads). When the connection is
// lost it reconnects (backing off) and tells everyone to re-read, since a notification sent
// meanwhile is gone: the rows are the truth.
import type { Notification, Pool, PoolClient, QueryResult, QueryResultRow } from 'pg'
import { unavailable } from './errors.js'
import { quoteIdent, type Names } from './sql.js'

type Handler = (payload: string) => void

export class Listener {
  private client: PoolClient | null = null
  private starting: Promise<void> | null = null
  private closed = false
  private retryMs = 50
  private readonly handlers = new Map<string, Set<Handler>>()
  private readonly reconnected = new Set<() => void>()

  constructor(private readonly pool: Pool, private readonly n: Names, private readonly channels: readonly string[]) {}

  /** The statements given to `query`, one after another on the connection. */
  private queued: Promise<unknown> = Promise.resolve()

  /** Runs a statement on this connection while it is up (a lane of its own; one at a time), else on the pool. */
  query<R extends QueryResultRow>(text: string, values?: unknown[]): Promise<QueryResult<R>> {
    const run = this.queued.then(() => (this.client ?? this.pool).query<R>(text, values))
    this.queued = run.catch(() => undefined)
    return run
  }

  /** Resolves once LISTEN is in place (so nothing notified after that is missed). */
  ready(): Promise<void> {
    if (this.client) return Promise.resolve()
    this.starting ??= this.start().finally(() => (this.starting = null))
    return this.starting
  }

  private async start() {
    let client: PoolClient
    try {
      client = await this.pool.connect()
    } catch (error) {
      throw unavailable(error, 'connecting to listen for appends')
    }
    const lost = () => this.lost(client)
    client.on('error', lost)
    client.on('end', lost)
    client.on('notification', (message: Notification) => {
      for (const handler of this.handlers.get(message.channel) ?? []) handler(message.payload ?? '')
    })
    try {
      await client.query(this.channels.map((channel) => `LISTEN ${quoteIdent(channel)}`).join('; '))
    } catch (error) {
      client.release(true)
      throw unavailable(error, 'starting to listen for appends')
    }
    if (this.closed) return client.release(true)
    this.client = client
    this.retryMs = 50
  }

  private lost(client: PoolClient) {
    if (this.client !== client) return
    this.client = null
    client.release(true)
    void this.reconnect()
  }

  private async reconnect() {
    while (!this.closed && !this.client) {
      await new Promise((resolve) => setTimeout(resolve, this.retryMs).unref?.())
      this.retryMs = Math.min(this.retryMs * 2, 2000)
      try {
        await this.ready()
      } catch {
        continue
      }
      for (const again of [...this.reconnected]) again()
    }
  }

  /** Calls `handler` with each payload on `channel`; returns an unsubscribe. */
  on(channel: string, handler: Handler): () => void {
    let set = this.handlers.get(channel)
    if (!set) this.handlers.set(channel, (set = new Set()))
    set.add(handler)
    return () => set.delete(handler)
  }

  /** Calls `again` after every reconnect (notifications may have been missed). */
  onReconnect(again: () => void): () => void {
    this.reconnected.add(again)
    return () => this.reconnected.delete(again)
  }

  close(): void {
    this.closed = true
    const client = this.client
    this.client = null
    client?.release(true)
  }
}
