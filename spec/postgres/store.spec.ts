// The session-store contract and the hub contract on the real PostgreSQL server.
import { dropSchemas, freshStore, postgresAvailable } from './helpers/db.js'
import { storeContract } from '../stores/contract.js'
import { hubContract } from '../hub/hubContract.js'

if (postgresAvailable('spec/postgres/store.spec.ts')) {
  const stores = storeContract('postgres', () => freshStore({ snapshots: { every: 5 } }), { snapshotEvery: 5 })
  stores.after(dropSchemas)
  stores.run()
  const hubs = hubContract('postgres', () => freshStore())
  hubs.after(dropSchemas)
  hubs.run()
}
