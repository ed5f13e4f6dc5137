// The session-store contract and the hub contract on the real NATS JetStream server.
import { dropNames, freshStore, natsAvailable } from './helpers/server.js'
import { storeContract } from '../stores/contract.js'
import { hubContract } from '../hub/hubContract.js'

if (natsAvailable('spec/nats/store.spec.ts')) {
  const stores = storeContract('nats', async () => freshStore({ snapshots: { every: 5 } }), { snapshotEvery: 5 })
  stores.after(dropNames)
  stores.run()
  const hubs = hubContract('nats', async () => freshStore())
  hubs.after(dropNames)
  hubs.run()
}
