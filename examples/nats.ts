// Sessions on NATS JetStream (npm install @nats-io/transport-node @nats-io/jetstream @nats-io/kv):
// like PostgreSQL, every process that runs this hub serves any session and routes a request for a
// session another process owns to it; on a three-node cluster, replicas: 3 keeps every
// acknowledged event through the loss of a node. NATS_URL names the server (nats-server -js).
import { createHub, say, scriptedModel } from 'agentlog'
import { natsStore } from 'agentlog/nats'

const store = natsStore({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222', name: 'agentlog_example', replicas: 1 })
await store.migrate() // creates the stream and KV buckets when missing (otherwise done on first use)

const hub = createHub({ store, agent: () => ({ name: 'Friday', model: scriptedModel([say('Stored in JetStream.')], { onExhausted: 'repeat-last' }) }) })
const { session_id } = await hub.create({ metadata: { user: 'ann' } })
const reply = await hub.session(session_id).reply('Hello!') // resolves once JetStream acknowledged its REPLY_END
console.log(reply.content, (await hub.session(session_id).state()).seq)
await hub.delete(session_id)
await hub.close() // releases the leases and closes the store's connection
