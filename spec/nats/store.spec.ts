// The session-store contract and the hub contract on the real NATS JetStream server.
import type { NatsStore } from '../../lib/nats.js'
import { connectNats } from '../../lib/nats/connection.js'
import { sha256 } from '../../lib/nats/load.js'
import { keyOf, names } from '../../lib/nats/names.js'
import { dropNames, NATS_URL, freshStore, natsAvailable } from './helpers/server.js'
import { storeContract } from '../stores/contract.js'
import { hubContract } from '../hub/hubContract.js'

if (natsAvailable('spec/nats/store.spec.ts')) {
  const stores = storeContract('nats', async () => freshStore({ snapshots: { every: 5 } }), {
    snapshotEvery: 5,
    // The snapshots bucket: session key → { seq, event_id, stream_seq, state, sha256 }.
    async rewriteSnapshot(store, session_id, edit) {
      const nats = await connectNats(names((store as NatsStore).name), { servers: NATS_URL, replicas: 1, leaseMs: 1000 })
      try {
        const key = keyOf(session_id)
        const record = (await nats.snapshots.get(key))!.json<{ state: string }>()
        const state = edit(record.state)
        await nats.snapshots.put(key, JSON.stringify({ ...record, state, sha256: sha256(state) }))
      } finally {
        await nats.nc.close()
      }
    },
  })
  stores.after(dropNames)
  stores.run()
  const hubs = hubContract('nats', async () => freshStore())
  hubs.after(dropNames)
  hubs.run()
}
