// Operator damage on the NATS server: a deleted owners bucket (and the other buckets the store owns)
// is made again by the running store, so opens go on working without a restart and the sessions it
// holds stay held; a purge of the stream under an open log is named as what it is, not as
// "another writer".
import { connect } from '@nats-io/transport-node'
import { jetstreamManager } from '@nats-io/jetstream'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { AgentEvent, AgentError } from '../../lib/index.js'
import type { NatsStore } from '../../lib/nats.js'
import { names } from '../../lib/nats/names.js'
import { dropNames, freshStore, NATS_URL, natsAvailable } from './helpers/server.js'

const test = suite('nats/operator-damage')
let store: NatsStore
test.before.each(async () => {
  store = freshStore()
  await store.migrate()
})
test.after.each(async () => {
  await store.close()
})
test.after(dropNames)

const event = (i: number): AgentEvent => ({ id: `ev-${i}-${Math.random()}`, created_at: new Date().toISOString(), metadata: { seq: i }, type: 'CUSTOM', name: 'note', value: { i } } as AgentEvent)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
/** Runs `act` with the server's JetStream manager, as an operator would (the nats CLI). */
const operator = async (act: (jsm: Awaited<ReturnType<typeof jetstreamManager>>) => Promise<unknown>) => {
  const nc = await connect({ servers: NATS_URL })
  try {
    await act(await jetstreamManager(nc))
  } finally {
    await nc.close()
  }
}

test('the owners bucket deleted by an operator: the store makes it again; new opens work without a restart, an open log goes on', async () => {
  const n = names(store.name)
  await store.create({ session_id: 'held' })
  const held = await store.open('held')
  held.append([event(1)], { expectedSeq: 0 })
  await held.flush()
  await operator((jsm) => jsm.streams.delete(`KV_${n.owners}`))
  await sleep(1500) // more than the lease (1 s): renewals meet the missing bucket
  await store.create({ session_id: 'later' })
  const later = await store.open('later')
  later.append([event(1)], { expectedSeq: 0 })
  await later.flush()
  await later.close()
  held.append([event(2)], { expectedSeq: 1 })
  await held.flush()
  await held.close()
  assert.is((await store.read('held')).length, 2, 'the session held across the damage kept its lease and its events')
  let exists = false
  await operator(async (jsm) => (exists = await jsm.streams.info(`KV_${n.owners}`).then(() => true, () => false)))
  assert.ok(exists, 'the bucket exists again')
})

test('the stream purged under an open log: the next append fails LOG_CONFLICT saying the events were removed, not "another writer"', async () => {
  const n = names(store.name)
  await store.create({ session_id: 's1' })
  const log = await store.open('s1')
  log.append([event(1), event(2)].map((e, i) => ({ ...e, metadata: { seq: i + 1 } })), { expectedSeq: 0 })
  await log.flush()
  await operator((jsm) => jsm.streams.purge(n.stream))
  log.append([event(3)], { expectedSeq: 2 })
  const failure = await log.flush().then(() => null, (error: AgentError) => error)
  await log.close()
  assert.is(failure?.code, 'LOG_CONFLICT')
  assert.match(failure!.message, /removed from the stream/)
  assert.not.match(failure!.message, /another writer/)
})

if (natsAvailable('spec/nats/operatorDamage.spec.ts')) test.run()
