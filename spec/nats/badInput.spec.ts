// natsStore's refusals: options that cannot work are INVALID_OPTION before anything connects; a
// server that cannot be reached is LOG_UNAVAILABLE saying what to check; an event larger than the
// server takes fails the log, storing nothing; a writer whose lease another process took over is
// fenced: its append is refused by JetStream and its log fails, the other writer's events stay.
import net from 'node:net'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { connect } from '@nats-io/transport-node'
import { Kvm } from '@nats-io/kv'
import { AgentError, counterClock, createEvent, type AgentEvent } from '../../lib/index.js'
import { natsStore } from '../../lib/nats.js'
import { rejectsWithCode as code } from '../helpers/expect.js'
import { dropNames, freshStore, NATS_URL, natsAvailable, newName } from './helpers/server.js'

const test = suite('nats/badInput')
test.after(dropNames)

const clock = counterClock('bad')
const note = (seq: number, text = 'x'): AgentEvent => createEvent(clock, 'CUSTOM', { name: 'note', value: { text }, metadata: { seq } })

test('options that cannot work are refused with INVALID_OPTION, saying what is expected', () => {
  const refused = (options: unknown, words: RegExp) => assert.throws(() => natsStore(options as never), (e: AgentError) => e.code === 'INVALID_OPTION' && words.test(e.message))
  refused(undefined, /servers/)
  refused({}, /exactly one of servers/)
  refused({ servers: 'postgres://x' }, /nats:\/\/127\.0\.0\.1:4222/)
  refused({ servers: NATS_URL, name: 'a.b' }, /name must be/)
  refused({ servers: NATS_URL, replicas: 2.5 }, /replicas/)
  refused({ servers: NATS_URL, leaseMs: 10 }, /leaseMs/)
  refused({ servers: NATS_URL, snapshots: { every: -1 } }, /snapshots\.every/)
})

test('a server that cannot be reached is LOG_UNAVAILABLE, saying what to check', async () => {
  const server = net.createServer().listen(0, '127.0.0.1')
  await new Promise((r) => server.once('listening', r))
  const port = (server.address() as net.AddressInfo).port
  await new Promise((r) => server.close(r))
  const store = natsStore({ servers: `nats://127.0.0.1:${port}` })
  try {
    await store.list()
    assert.unreachable()
  } catch (error) {
    assert.is((error as AgentError).code, 'LOG_UNAVAILABLE')
    assert.match((error as Error).message, /nats-server/)
  }
  await store.close()
})

test('an event larger than the server takes fails the log, and nothing of it is stored', async () => {
  const store = freshStore()
  try {
    await store.create({ session_id: 's1' })
    const log = await store.open('s1')
    log.append([note(1)], { expectedSeq: 0 })
    await log.flush()
    log.append([note(2, 'y'.repeat(2 * 1024 * 1024))], { expectedSeq: 1 })
    await code(log.flush(), 'LOG_UNAVAILABLE')
    assert.throws(() => log.append([note(3)], { expectedSeq: 2 }), (e: AgentError) => e.code === 'LOG_UNAVAILABLE' && /max_payload/.test(e.message))
    await log.close()
    assert.equal((await store.read('s1')).map((e) => e.metadata.seq), [1])
  } finally {
    await store.close()
  }
})

test('a writer whose lease ran out and was taken over is fenced: its append is refused, the new owner\'s events stay', async () => {
  const name = newName()
  // Renewals every 10 s: A does not notice its key is gone before it appends (the fence must hold alone).
  const a = freshStore({ leaseMs: 30_000 }, name)
  const b = freshStore({ leaseMs: 30_000 }, name)
  const nc = await connect({ servers: NATS_URL })
  try {
    await a.create({ session_id: 's1' })
    const stale = await a.open('s1')
    stale.append([note(1)], { expectedSeq: 0 })
    await stale.flush()
    await code(b.open('s1'), 'SESSION_BUSY')
    // A's owner key runs out (as when A is paused past its lease): delete it behind A's back.
    const owners = await new Kvm(nc).open(`${name}_owners`)
    for await (const key of await owners.keys()) await owners.delete(key)
    const fresh = await b.open('s1')
    fresh.append([note(2, 'by b')], { expectedSeq: 1 })
    await fresh.flush()
    stale.append([note(2, 'by a')], { expectedSeq: 1 })
    await code(stale.flush(), 'LOG_CONFLICT')
    const events = await b.read('s1')
    assert.equal(events.map((e) => (e.type === 'CUSTOM' ? (e.value as { text: string }).text : '')), ['x', 'by b'])
    await fresh.close()
    await stale.close()
  } finally {
    await nc.close()
    await a.close()
    await b.close()
  }
})

if (natsAvailable('spec/nats/badInput.spec.ts')) test.run()
