// The session-store contract and the hub contract on the real PostgreSQL server.
import type { PostgresStore } from '../../lib/postgres.js'
import { sha256 } from '../../lib/postgres/load.js'
import { admin, dropSchemas, freshStore, postgresAvailable } from './helpers/db.js'
import { storeContract } from '../stores/contract.js'
import { hubContract } from '../hub/hubContract.js'

if (postgresAvailable('spec/postgres/store.spec.ts')) {
  const stores = storeContract('postgres', () => freshStore({ snapshots: { every: 5 } }), {
    snapshotEvery: 5,
    async rewriteSnapshot(store, session_id, edit) {
      const table = `"${(store as PostgresStore).schema}".snapshots`
      const [{ state }] = await admin<{ state: string }>(`SELECT state FROM ${table} WHERE session_id = $1`, [session_id])
      const edited = edit(state)
      await admin(`UPDATE ${table} SET state = $2, state_sha256 = $3 WHERE session_id = $1`, [session_id, edited, sha256(edited)])
    },
  })
  stores.after(dropSchemas)
  stores.run()
  const hubs = hubContract('postgres', () => freshStore(), {
    async remains(store, session_id) {
      const schema = (store as PostgresStore).schema
      const [row] = await admin<{ n: string }>(['sessions', 'events', 'snapshots', 'requests']
        .map((table) => `SELECT count(*) AS n FROM "${schema}".${table} WHERE session_id = $1`).join(' UNION ALL ').replace(/^/, 'SELECT sum(n) AS n FROM (') + ') t', [session_id])
      return Number(row.n)
    },
  })
  hubs.after(dropSchemas)
  hubs.run()
}
