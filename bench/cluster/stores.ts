// The two stores the cluster benchmark runs on: PostgreSQL (DATABASE_URL) and NATS JetStream
// (NATS_URL), each under a name of this run: how `agentlog serve` is pointed at it, a store for
// this process (to verify the logs at the end), and the cleanup.
import { connect } from '@nats-io/transport-node'
import { jetstreamManager } from '@nats-io/jetstream'
import pg from 'pg'
import type { SessionStore } from '../../lib/index.js'
import { natsStore } from '../../lib/nats.js'
import { postgresStore } from '../../lib/postgres.js'

export interface BenchStore {
  kind: 'postgres' | 'nats'
  /** `agentlog serve` arguments that select the store. */
  args: string[]
  open(options?: { snapshots?: false }): SessionStore & { migrate(): Promise<number[]> }
  drop(): Promise<void>
}

export const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
export const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222'

export const benchStore = (kind: 'postgres' | 'nats', tag: string): BenchStore => {
  const name = `bench_cluster_${process.pid}_${tag}`
  if (kind === 'postgres') return {
    kind,
    args: ['--store', DATABASE_URL, '--schema', name],
    open: (options = {}) => postgresStore({ connectionString: DATABASE_URL, schema: name, ...options }),
    async drop() {
      const client = new pg.Client({ connectionString: DATABASE_URL })
      await client.connect()
      await client.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`)
      await client.end()
    },
  }
  const prefix = name.replace(/_/g, '-')
  return {
    kind,
    args: ['--store', NATS_URL, '--schema', prefix],
    open: (options = {}) => natsStore({ servers: NATS_URL, name: prefix, ...options }),
    async drop() {
      const nc = await connect({ servers: NATS_URL })
      const jsm = await jetstreamManager(nc)
      for await (const stream of jsm.streams.names()) if (stream.includes(prefix)) await jsm.streams.delete(stream).catch(() => undefined)
      await nc.close()
    },
  }
}
