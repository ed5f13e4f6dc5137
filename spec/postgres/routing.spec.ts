// Routing between hubs on the same database, each with its own store (its own lease and LISTEN
// connections, so PostgreSQL sees two processes): a reply streamed through B runs on A, the owner;
// refusals come back coded; follow on B delivers A's events in order, also across a lost LISTEN
// connection; a request a dead owner applied is not applied again.
import { firstValueFrom, toArray, takeWhile } from 'rxjs'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { AgentError, callTool, createHub, say, scriptedModel, type AgentEvent, type Hub, type OutputEvent } from '../../lib/index.js'
import type { PostgresStore } from '../../lib/postgres.js'
import { checkLog } from '../../lib/core/logCheck.js'
import { sessionAgent } from '../helpers/sessionModel.js'
import { admin, dropSchemas, freshStore, newSchema, postgresAvailable } from './helpers/db.js'

const test = suite('postgres/routing')
let storeA: PostgresStore
let storeB: PostgresStore
let a: Hub
let b: Hub
let schema: string

test.before.each(async () => {
  schema = newSchema()
  storeA = await freshStore({}, schema)
  storeB = await freshStore({}, schema)
  a = createHub({ store: storeA, agent: sessionAgent(3) })
  b = createHub({ store: storeB, agent: sessionAgent(3) })
  await a.create({ session_id: 's1' })
  await a.session('s1').reply('hello') // A owns s1 from now on
})
test.after.each(async () => {
  await b.close()
  await a.close()
})
test.after(dropSchemas)

const collect = async (stream: AsyncIterable<OutputEvent>) => {
  const out: OutputEvent[] = []
  for await (const e of stream) out.push(e)
  return out
}

test('a request that a dead owner applied but never answered is answered from the log, not applied again', async () => {
  // What A leaves when it dies between applying a routed message and answering it: the row, still
  // pending, and the message in the log, tagged with the row's id.
  const [{ id }] = await admin<{ id: string }>(
    `INSERT INTO "${schema}".requests (session_id, command, after_seq) SELECT session_id, $1, last_seq FROM "${schema}".sessions WHERE session_id = 's1' RETURNING id`,
    [JSON.stringify({ op: 'input', input: 'only once' })])
  await a.session('s1').reply('only once', { metadata: { request_id: id } })
  await a.close()
  // B opens the session (a reply of its own) and answers the rows waiting for it.
  await b.session('s1').reply('after')
  let row: { done: boolean; outcome: string | null } | undefined
  for (let i = 0; i < 100 && !row?.done; i++) {
    ;[row] = await admin<{ done: boolean; outcome: string | null }>(`SELECT done, outcome FROM "${schema}".requests WHERE id = $1`, [id])
    if (!row.done) await new Promise((resolve) => setTimeout(resolve, 50))
  }
  assert.ok(row?.done, 'answered')
  const log = await storeB.read('s1')
  const messages = log.filter((e) => e.type === 'USER_MESSAGE').map((e) => e.type === 'USER_MESSAGE' && e.msg.content[0])
  assert.equal(messages.map((block) => block && block.type === 'text' && block.text), ['hello', 'only once', 'after'], 'applied once')
  const { events } = JSON.parse(row!.outcome!) as { events: AgentEvent[] }
  const tagged = log.find((e) => e.metadata.request_id === id)!
  assert.equal(events.map((e) => [e.type, e.metadata.seq]), [['USER_MESSAGE', tagged.metadata.seq], ['REPLY_START', (tagged.metadata.seq as number) + 1]], 'the answer is the events it caused')
  assert.equal(checkLog(log).violations, [])
})

test('a message routed through B is tagged with its request, and the caller\'s metadata travels with it', async () => {
  await b.session('s1').reply('routed', { metadata: { trace_id: 't-1' } })
  const routed = (await storeA.read('s1')).find((e) => e.type === 'USER_MESSAGE' && e.metadata.trace_id === 't-1')
  assert.ok(routed, 'the message carries the caller\'s metadata')
  assert.type(routed!.metadata.request_id, 'string')
})

test('a reply streamed through B runs on A and is read back in order to its REPLY_END', async () => {
  const events = await collect(b.session('s1').replyStream('stream 8'))
  assert.equal(events.map((e) => e.type).slice(0, 2), ['REPLY_START', 'MODEL_CALL_START'])
  assert.is(events.at(-1)!.type, 'REPLY_END')
  assert.is(events.filter((e) => e.type === 'TEXT_BLOCK_DELTA').length, 8)
  const seqs = events.map((e) => e.metadata.seq as number)
  assert.ok(seqs.every((s, i) => i === 0 || s > seqs[i - 1]), 'in order')
  const msg = await b.session('s1').reply('again')
  assert.is(msg.finished_reason, 'completed')
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

test("a reply through B offers the caller's tools on A: a call to one pauses for B's result", async () => {
  const schema = newSchema()
  const agent = () => ({ name: 'Friday', model: scriptedModel([say('hi'), callTool('c1', 'pick_color', { shade: 'dark' }), say('done')]) })
  const owner = createHub({ store: await freshStore({}, schema), agent })
  const caller = createHub({ store: await freshStore({}, schema), agent })
  try {
    await owner.create({ session_id: 'ft' })
    await owner.session('ft').reply('hello') // the owner holds the session
    const pick = { name: 'pick_color', description: 'Asks the user for a colour', parameters: { type: 'object', properties: { shade: { type: 'string' } } } }
    const events = await collect(caller.session('ft').replyStream('pick one', { externalTools: [pick] }))
    assert.is(events.at(-1)!.type, 'REQUIRE_EXTERNAL_EXECUTION')
    const state = await caller.session('ft').state()
    assert.equal(state.waiting_for.map((c) => [c.name, c.state]), [['pick_color', 'submitted']])
    await caller.session('ft').submitResult('c1', 'teal')
    const after = await owner.session('ft').state()
    assert.is(after.status, 'idle')
    assert.match(JSON.stringify(after.context.at(-1)), 'teal')
  } finally {
    await caller.close()
    await owner.close()
  }
})

const requestRows = async () =>
  (await admin<{ id: string }>(`SELECT id FROM "${schema}".requests ORDER BY id`)).map((r) => r.id)

test('a routed request leaves no row behind: its caller deletes it once it has read the answer', async () => {
  assert.is((await b.session('s1').reply('again')).finished_reason, 'completed')
  for (let i = 0; i < 100 && (await requestRows()).length > 0; i++) await new Promise((r) => setTimeout(r, 20))
  assert.equal(await requestRows(), [])
})

test('answered rows of callers that died are removed by the owner once older than the bound', async () => {
  const leftover = (age: string) => admin<{ id: string }>(
    `INSERT INTO "${schema}".requests (session_id, command, done, outcome, answered_at) VALUES ('s1', '{}', true, '{"events":[]}', now() - interval '${age}') RETURNING id`)
  const [old] = await leftover('11 minutes')
  const [recent] = await leftover('1 minute')
  assert.is((await b.session('s1').reply('again')).finished_reason, 'completed')
  const rows = await requestRows()
  assert.not.ok(rows.includes(old.id), 'the answered row older than the bound is gone')
  assert.ok(rows.includes(recent.id), 'a recent answer still waits for its caller')
})

test('follow on B delivers every event A writes, in order, also across a lost LISTEN connection', async () => {
  const from = (await storeA.info('s1')).last_seq
  const seen = firstValueFrom(b.session('s1').follow({ fromSeq: from }).pipe(takeWhile((e) => e.type !== 'REPLY_END', true), toArray()))
  const reply = a.session('s1').reply('stream 40')
  await new Promise((r) => setTimeout(r, 40))
  const [listening] = await admin<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE query LIKE 'LISTEN%' AND query LIKE $1 AND pid <> pg_backend_pid() ORDER BY backend_start DESC LIMIT 1`, [`%${storeB.schema}%`])
  assert.ok(listening, 'B listens')
  await admin('SELECT pg_terminate_backend($1)', [listening.pid])
  await reply
  const events = await seen
  const all = await storeA.read('s1', { fromSeq: from })
  assert.equal(events.map((e) => e.metadata.seq), all.map((e) => e.metadata.seq), 'no gap, no duplicate')
})

if (postgresAvailable('spec/postgres/routing.spec.ts')) test.run()
