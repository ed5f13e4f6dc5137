// The store's connection to NATS, made on first use: the application's connection or one of its
// own to `servers`; the JetStream clients; the stream of events and the KV buckets, created when
// missing (with `replicas` copies each) and bound when present, so several processes and restarts
// share them. The owners bucket's TTL is the lease: an owner that stops renewing its key loses it.
// `repair` creates again what an operator deleted (the store owns them; their keys are made anew).
import { connect, type NatsConnection } from '@nats-io/transport-node'
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream'
import { Kvm, type KV } from '@nats-io/kv'
import { sleep } from '../core/abort.js'
import { unavailable } from './errors.js'
import type { Names } from './names.js'

/** How long an answered or abandoned routed request is kept. */
export const REQUEST_TTL_MS = 10 * 60_000

export interface Nats {
  nc: NatsConnection
  js: JetStreamClient
  jsm: JetStreamManager
  sessions: KV
  owners: KV
  leases: KV
  requests: KV
  snapshots: KV
  /** The largest message the server takes (bytes). */
  maxPayload: number
  /** Creates again the stream and buckets that were deleted behind the store's back (an operator); returns their names. */
  repair(): Promise<string[]>
}

export interface ConnectOptions {
  servers?: string | string[]
  connection?: NatsConnection
  replicas: number
  leaseMs: number
}

const streamMissing = (error: unknown) => /stream not found/i.test((error as Error)?.message ?? '')

export const connectNats = async (n: Names, options: ConnectOptions): Promise<Nats> => {
  let nc: NatsConnection
  try {
    nc = options.connection ?? await connect({ servers: options.servers, name: `agentlog ${n.prefix}`, maxReconnectAttempts: -1, reconnectTimeWait: 250 })
  } catch (error) {
    throw unavailable(error, `connecting to ${String(options.servers)}`)
  }
  // A cluster that just started (or is electing leaders) may time out a while: setup is retried.
  for (let attempt = 1; ; attempt++) {
    try {
      return await setUp(nc, n, options)
    } catch (error) {
      if (attempt < SETUP_ATTEMPTS && /timeout|no responders/i.test((error as Error)?.message ?? '')) {
        await sleep(500)
        continue
      }
      if (!options.connection) await nc.close().catch(() => undefined)
      throw unavailable(error, 'setting up the JetStream stream and KV buckets (is nats-server started with -js?)')
    }
  }
}

const SETUP_ATTEMPTS = 10

/** Creates the stream and the buckets that are missing (with `replicas` copies each; an existing one is left as it is); returns the names it created. */
const ensure = async (jsm: JetStreamManager, kvm: Kvm, n: Names, options: ConnectOptions): Promise<string[]> => {
  const created: string[] = []
  const missing = (name: string) => jsm.streams.info(name).then(() => false, (error: unknown) => {
    if (!streamMissing(error)) throw error
    return true
  })
  if (await missing(n.stream)) {
    await jsm.streams.add({ name: n.stream, subjects: [`${n.prefix}.ev.>`], num_replicas: options.replicas, duplicate_window: 120_000_000_000 })
    created.push(n.stream)
  }
  await Promise.all(([[n.sessions, 0], [n.owners, options.leaseMs], [n.leases, 0], [n.requests, REQUEST_TTL_MS], [n.snapshots, 0]] as const).map(async ([name, ttl]) => {
    if (!(await missing(`KV_${name}`))) return
    await kvm.create(name, { history: 1, replicas: options.replicas, ...(ttl ? { ttl } : {}) })
    created.push(name)
  }))
  return created
}

const setUp = async (nc: NatsConnection, n: Names, options: ConnectOptions): Promise<Nats> => {
  const jsm = await jetstreamManager(nc, { timeout: 2000 })
  const kvm = new Kvm(nc)
  await ensure(jsm, kvm, n, options)
  // An existing bucket is bound as it is (the first process's replicas and lease TTL hold).
  const [sessions, owners, leases, requests, snapshots] = await Promise.all([n.sessions, n.owners, n.leases, n.requests, n.snapshots].map((name) => kvm.open(name)))
  let repairing: Promise<string[]> | null = null
  return {
    nc, js: jetstream(nc, { timeout: 2000 }), jsm, sessions, owners, leases, requests, snapshots, maxPayload: nc.info?.max_payload ?? 1024 * 1024,
    repair: () => (repairing ??= ensure(jsm, kvm, n, options).finally(() => (repairing = null))),
  }
}
