// agentlog's NATS JetStream API (`agentlog/nats`, needs @nats-io/transport-node, @nats-io/jetstream
// and @nats-io/kv): the session store for many processes and machines.
export { natsStore, type NatsStore, type NatsStoreOptions } from './nats/store.js'
export type { PgLog as NatsLog } from './postgres/log.js'
export type { CommitInfo } from './postgres/writer.js'
