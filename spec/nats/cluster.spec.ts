// A three-node JetStream cluster of the spec's own, the store with replicas: 3, and the stream's
// leader SIGKILLed while a hub in a child process streams replies: nothing acknowledged is lost,
// the replies go on (or end with a REPLY_END) and the log stays valid, and a follower in this
// process, another than the writer's, sees every event exactly once.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { connect } from '@nats-io/transport-node'
import { jetstreamManager } from '@nats-io/jetstream'
import type { AgentEvent } from '../../lib/index.js'
import { natsStore, type NatsStore } from '../../lib/nats.js'
import { checkLog } from '../../lib/core/logCheck.js'
import { startHubChild, type HubChild } from '../postgres/helpers/children.js'
import { startCluster, natsServerInstalled, type Cluster } from './helpers/cluster.js'

const test = suite('nats/cluster')
let cluster: Cluster | undefined
let store: NatsStore | undefined
let writer: HubChild | undefined

test.after(async () => {
  delete process.env.NATS_LEASE_MS
  delete process.env.NATS_REPLICAS
  await writer?.kill()
  await store?.close()
  await cluster?.stop()
})

const streamLeader = async (urls: string[], stream: string): Promise<string> => {
  const nc = await connect({ servers: urls })
  try {
    return (await (await jetstreamManager(nc)).streams.info(stream)).cluster!.leader!
  } finally {
    await nc.close()
  }
}

test('the stream leader SIGKILLed while replies stream: nothing acknowledged lost, replies go on, a follower sees every event once', async () => {
  cluster = await startCluster(3)
  const name = 'cluster'
  // Leases outlive the cluster's leader election (a few seconds) so the writer keeps its session.
  process.env.NATS_LEASE_MS = '15000'
  process.env.NATS_REPLICAS = '3'
  store = natsStore({ servers: cluster.urls, name, replicas: 3, leaseMs: 15_000 })
  await store.migrate()
  await store.create({ session_id: 's1' })
  const followed: AgentEvent[] = []
  let followError: unknown
  const following = store.follow('s1').subscribe({ next: (e) => followed.push(e), error: (e) => (followError = e) })
  writer = await startHubChild(name, cluster.urls.join(','))
  const loop = writer.request('loop', 's1', { input: 'stream 10' })
  const acked = () => writer!.lines.filter((l) => l.id === loop.id && l.acked !== undefined)
  await writer.waitFor(() => acked().length >= 3)

  const leader = await streamLeader(cluster.urls, `${name}_events`)
  await cluster.kill(leader)
  const before = acked().length
  await writer.waitFor(() => acked().length >= before + 3)

  const closed = writer.request('close', 's1')
  await closed.answer
  await writer.exited
  const events = await store.read('s1')
  for (const line of acked()) {
    const event = events[line.acked! - 1]
    assert.ok(event?.type === 'REPLY_END' && event.reply_id === line.reply_id, `acknowledged REPLY_END ${line.acked} is stored`)
  }
  assert.equal(checkLog(events).violations, [], 'the log is valid: every reply that started ended')
  assert.is(events.at(-1)!.type, 'REPLY_END')
  for (let i = 0; i < 500 && followed.length < events.length && !followError; i++) await new Promise((r) => setTimeout(r, 20))
  following.unsubscribe()
  assert.is(followError, undefined)
  assert.equal(followed.map((e) => e.metadata.seq), events.map((e) => e.metadata.seq), 'every event once, in order')
  assert.equal(followed.map((e) => e.id), events.map((e) => e.id))
})

if (natsServerInstalled()) test.run()
else process.stdout.write(`skipping spec/nats/cluster.spec.ts: nats-server is not installed (set NATS_SERVER to its path).\n`)
