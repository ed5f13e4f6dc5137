// The NATS server with JetStream for the specs: NATS_URL (default nats://127.0.0.1:4222). Each store
// gets a name (prefix) of its own; its stream and buckets are deleted at the end of the run.
// Outside CI, an unreachable server skips the NATS specs with one line saying how to run them;
// with CI=true it fails.
import { spawnSync } from 'node:child_process'
import { connect } from '@nats-io/transport-node'
import { jetstreamManager } from '@nats-io/jetstream'
import { natsStore, type NatsStore, type NatsStoreOptions } from '../../../lib/nats.js'
import { noteSkipped } from '../../helpers/skipped.js'

export const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222'

/** True when the server accepts connections; false (after one line on stdout) when the NATS specs should be skipped. */
export const natsAvailable = (file: string): boolean => {
  const { hostname, port } = new URL(NATS_URL)
  const probe = `const s = require('node:net').connect({ host: ${JSON.stringify(hostname || '127.0.0.1')}, port: ${Number(port) || 4222} }, () => process.exit(0));
    s.on('error', () => process.exit(1)); setTimeout(() => process.exit(1), 3000)`
  if (spawnSync(process.execPath, ['-e', probe]).status === 0) return true
  const why = `NATS is not reachable at ${NATS_URL}`
  if (process.env.CI === 'true') throw new Error(`${why}; CI must run the NATS specs (.ci/run starts the server).`)
  process.stdout.write(`skipping ${file}: ${why}. Start it (nats-server -js) or set NATS_URL, then run npm test.\n`)
  noteSkipped(file, 'NATS')
  return false
}

const prefixes: string[] = []
let counter = 0

export const newName = (): string => {
  const name = `spec${process.pid}x${Date.now().toString(36)}x${counter++}`
  prefixes.push(name)
  return name
}

/** A store under a fresh name (its stream and buckets made on first use). */
export const freshStore = (options: Partial<NatsStoreOptions> = {}, name = newName()): NatsStore =>
  natsStore({ servers: NATS_URL, name, leaseMs: 1000, ...options })

/** Deletes the streams (and so the KV buckets) of every name this run made. */
export const dropNames = async (): Promise<void> => {
  if (prefixes.length === 0) return
  const nc = await connect({ servers: NATS_URL })
  try {
    const jsm = await jetstreamManager(nc)
    const mine = new Set(prefixes.splice(0))
    for await (const stream of jsm.streams.names()) {
      const prefix = stream.replace(/^KV_/, '').replace(/_[a-z]+$/, '')
      if (mine.has(prefix)) await jsm.streams.delete(stream).catch(() => undefined)
    }
  } finally {
    await nc.close()
  }
}
