// The store a child process opens: the spec's schema on DATABASE_URL, already migrated by the
// parent; or, for a nats:// URL, the spec's store name on that NATS server.
import { postgresStore } from '../../../lib/postgres.js'
import { natsStore } from '../../../lib/nats.js'

export const open = (url: string, schema: string) => {
  const pgStore = url.startsWith('nats://') ? natsStore({ servers: url.split(','), name: schema, leaseMs: Number(process.env.NATS_LEASE_MS ?? 1000), replicas: Number(process.env.NATS_REPLICAS ?? 1) }) : postgresStore({ connectionString: url, schema })
  return { store: pgStore, pgStore }
}
