// Routing between hubs on one NATS server, each with its own store (its own connection and owner
// lease, as two processes): a reply streamed through B runs on A, the owner; refusals come back
// coded; follow on B delivers A's events in order; a request a dead owner applied but never
// answered is answered from the log, not applied again; an answered request leaves no key behind.
import { firstValueFrom, toArray, takeWhile } from 'rxjs'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { connect } from '@nats-io/transport-node'
import { Kvm } from '@nats-io/kv'
import { AgentError, createHub, type AgentEvent, type Hub, type OutputEvent } from '../../lib/index.js'
import type { NatsStore } from '../../lib/nats.js'
import { checkLog } from '../../lib/core/logCheck.js'
import { sessionAgent } from '../helpers/sessionModel.js'
import { dropNames, freshStore, NATS_URL, natsAvailable, newName } from './helpers/server.js'

const test = suite('nats/routing')
let storeA: NatsStore
let storeB: NatsStore
let a: Hub
let b: Hub
let name: string

test.before.each(async () => {
  name = newName()
  storeA = freshStore({}, name)
  storeB = freshStore({}, name)
  a = createHub({ store: storeA, agent: sessionAgent(3) })
  b = createHub({ store: storeB, agent: sessionAgent(3) })
  await a.create({ session_id: 's1' })
  await a.session('s1').reply('hello') // A owns s1 from now on
})
test.after.each(async () => {
  await b.close()
  await a.close()
})
test.after(dropNames)

const collect = async (stream: AsyncIterable<OutputEvent>) => {
  const out: OutputEvent[] = []
  for await (const e of stream) out.push(e)
  return out
}

/** The store's requests bucket, read and written behind its back. */
const requests = async <T>(use: (kv: Awaited<ReturnType<Kvm['open']>>) => Promise<T>): Promise<T> => {
  const nc = await connect({ servers: NATS_URL })
  try {
    return await use(await new Kvm(nc).open(`${name}_requests`))
  } finally {
    await nc.close()
  }
}

test('a request that a dead owner applied but never answered is answered from the log, not applied again', async () => {
  // What A leaves when it dies between applying a routed message and answering it: the request,
  // pending, and the message in the log, tagged with the request's id.
  const id = 'req-applied-once'
  const afterSeq = (await storeA.info('s1')).last_seq
  await requests((kv) => kv.create(`s1.${id}`, JSON.stringify({ command: { op: 'input', input: 'only once' }, afterSeq })))
  await a.session('s1').reply('only once', { metadata: { request_id: id } })
  await a.close()
  // B opens the session (a reply of its own) and answers the requests waiting for it.
  await b.session('s1').reply('after')
  let outcome: { events: AgentEvent[] } | undefined
  for (let i = 0; i < 200 && !outcome; i++) {
    outcome = await requests(async (kv) => (await kv.get(`s1.${id}`))?.json<{ outcome?: { events: AgentEvent[] } }>().outcome)
    if (!outcome) await new Promise((resolve) => setTimeout(resolve, 25))
  }
  assert.ok(outcome, 'answered')
  const log = await storeB.read('s1')
  const messages = log.filter((e) => e.type === 'USER_MESSAGE').map((e) => e.type === 'USER_MESSAGE' && e.msg.content[0])
  assert.equal(messages.map((block) => block && block.type === 'text' && block.text), ['hello', 'only once', 'after'], 'applied once')
  const tagged = log.find((e) => e.metadata.request_id === id)!
  assert.equal(outcome!.events.map((e) => [e.type, e.metadata.seq]), [['USER_MESSAGE', tagged.metadata.seq], ['REPLY_START', (tagged.metadata.seq as number) + 1]], 'the answer is the events it caused')
  assert.equal(checkLog(log).violations, [])
})

test('a reply streamed through B runs on A and is read back in order to its REPLY_END; metadata travels with it', async () => {
  const events = await collect(b.session('s1').replyStream('stream 8', { metadata: { trace_id: 't-1' } }))
  assert.equal(events.map((e) => e.type).slice(0, 2), ['REPLY_START', 'MODEL_CALL_START'])
  assert.is(events.at(-1)!.type, 'REPLY_END')
  assert.is(events.filter((e) => e.type === 'TEXT_BLOCK_DELTA').length, 8)
  const seqs = events.map((e) => e.metadata.seq as number)
  assert.ok(seqs.every((s, i) => i === 0 || s > seqs[i - 1]), 'in order')
  const routed = (await storeA.read('s1')).find((e) => e.type === 'USER_MESSAGE' && e.metadata.trace_id === 't-1')
  assert.ok(routed, 'the message carries the caller\'s metadata')
  assert.type(routed!.metadata.request_id, 'string')
  assert.equal(checkLog(await storeA.read('s1')).violations, [])
})

test('a pause is read back through B, answered through B, and refusals come back coded', async () => {
  const asked = await collect(b.session('s1').replyStream('ask /tmp/z'))
  assert.is(asked.at(-1)!.type, 'REQUIRE_USER_CONFIRM')
  try {
    await b.session('s1').dispatch('a message while paused')
    assert.unreachable()
  } catch (error) {
    assert.instance(error, AgentError)
    assert.is((error as AgentError).code, 'REPLY_PAUSED')
  }
  const call = (await b.session('s1').state()).waiting_for[0]
  const caused = await b.session('s1').dispatch({ approve: call.id })
  assert.is(caused[0].type, 'USER_CONFIRM_RESULT')
})

test('a routed request leaves no key behind: its caller deletes it once it has read the answer', async () => {
  assert.is((await b.session('s1').reply('again')).finished_reason, 'completed')
  const keys = () => requests(async (kv) => {
    const found: string[] = []
    for await (const k of await kv.keys()) found.push(k)
    return found
  })
  for (let i = 0; i < 100 && (await keys()).length > 0; i++) await new Promise((r) => setTimeout(r, 20))
  assert.equal(await keys(), [])
})

test('follow on B delivers every event A writes, in order, from any seq', async () => {
  const from = (await storeA.info('s1')).last_seq
  const seen = firstValueFrom(b.session('s1').follow({ fromSeq: from }).pipe(takeWhile((e) => e.type !== 'REPLY_END', true), toArray()))
  const middle = firstValueFrom(b.session('s1').follow({ fromSeq: 3 }).pipe(takeWhile((e) => e.type !== 'REPLY_END', true), toArray()))
  await a.session('s1').reply('stream 40')
  const events = await seen
  const all = await storeA.read('s1', { fromSeq: from })
  assert.equal(events.map((e) => e.metadata.seq), all.map((e) => e.metadata.seq), 'no gap, no duplicate')
  const fromThree = await middle
  assert.equal(fromThree.map((e) => e.metadata.seq), (await storeA.read('s1', { fromSeq: 3 })).slice(0, fromThree.length).map((e) => e.metadata.seq))
  assert.is(fromThree[0].metadata.seq, 4)
})

if (natsAvailable('spec/nats/routing.spec.ts')) test.run()
