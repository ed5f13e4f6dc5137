// The real PostgreSQL server for the specs: DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test).
// Each store gets a schema of its own, dropped at the end of the run. Outside CI, an unreachable
// server skips the Postgres specs with one line saying how to run them; with CI=true it fails.
import { spawnSync } from 'node:child_process'
import pg from 'pg'
import { noteSkipped } from '../../helpers/skipped.js'
import { postgresStore, type PostgresStore, type PostgresStoreOptions } from '../../../lib/postgres.js'

export const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'

/**
 * True when the server accepts connections; false (after one line on stdout) when the Postgres
 * specs should be skipped. Synchronous (a short child process), because uvu loads spec files so.
 */
export const postgresAvailable = (file: string): boolean => {
  const { hostname, port } = new URL(DATABASE_URL)
  const probe = `const s = require('node:net').connect({ host: ${JSON.stringify(hostname || '127.0.0.1')}, port: ${Number(port) || 5432} }, () => process.exit(0));
    s.on('error', () => process.exit(1)); setTimeout(() => process.exit(1), 3000)`
  if (spawnSync(process.execPath, ['-e', probe]).status === 0) return true
  const why = `PostgreSQL is not reachable at ${DATABASE_URL}`
  if (process.env.CI === 'true') throw new Error(`${why}; CI must run the Postgres specs (.ci/run starts the server).`)
  process.stdout.write(`skipping ${file}: ${why}. Start it (pg_ctlcluster --skip-systemctl-redirect 15 main start) or set DATABASE_URL, then run npm test.\n`)
  noteSkipped(file, 'PostgreSQL')
  return false
}

const schemas: string[] = []
let counter = 0

export const newSchema = (): string => {
  const schema = `spec_${process.pid}_${Date.now().toString(36)}_${counter++}`
  schemas.push(schema)
  return schema
}

/** A migrated store on a fresh schema (its own pool unless one is given). */
export const freshStore = async (options: Partial<PostgresStoreOptions> = {}, schema = newSchema()): Promise<PostgresStore> => {
  const store = postgresStore({ connectionString: options.pool ? undefined : DATABASE_URL, schema, ...options })
  await store.migrate()
  return store
}

/** Drops every schema this run made. */
export const dropSchemas = async (): Promise<void> => {
  if (schemas.length === 0) return
  const client = new pg.Client({ connectionString: DATABASE_URL })
  await client.connect()
  try {
    for (const schema of schemas.splice(0)) await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
  } finally {
    await client.end()
  }
}

/** Runs SQL as the admin (terminating backends, altering tables behind the store's back). */
export const admin = async <R extends object = Record<string, unknown>>(sql: string, values: unknown[] = [], url = DATABASE_URL): Promise<R[]> => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query<R>(sql, values)).rows
  } finally {
    await client.end()
  }
}
