// agentlog's PostgreSQL API (`agentlog/postgres`, needs the `pg` package): the session store for
// many processes, and its migrations.
export { postgresStore, type PostgresStore, type PostgresStoreOptions } from './postgres/store.js'
export { migrate, SCHEMA_VERSION } from './postgres/migrations.js'
export type { PgLog } from './postgres/log.js'
export type { CommitInfo } from './postgres/writer.js'
