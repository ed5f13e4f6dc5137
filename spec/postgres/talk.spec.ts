// Issue 30 across processes: a steer, a queued message and a gentle Stop sent to a hub that does
// not own the session reach the owner once (the routed request's id is on the event it recorded),
// and resolve as on the owner.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createHub, type Hub, type Msg } from '../../lib/index.js'
import type { PostgresStore } from '../../lib/postgres.js'
import { checkLog } from '../../lib/core/logCheck.js'
import { sessionAgent } from '../helpers/sessionModel.js'
import { dropSchemas, freshStore, newSchema, postgresAvailable } from './helpers/db.js'

const test = suite('postgres/talk')
let storeA: PostgresStore
let a: Hub
let b: Hub
const tick = (ms = 10) => new Promise((resolve) => setTimeout(resolve, ms))
const texts = (messages: Msg[]) => messages.filter((m) => m.role === 'user').map((m) => m.content.map((b) => (b.type === 'text' ? b.text : '')).join(''))

test.before.each(async () => {
  const schema = newSchema()
  storeA = await freshStore({}, schema)
  a = createHub({ store: storeA, agent: sessionAgent(3) })
  b = createHub({ store: await freshStore({}, schema), agent: sessionAgent(3) })
  await a.create({ session_id: 's1' })
  await a.session('s1').reply('hello') // A owns s1 from now on
})
test.after.each(async () => {
  await b.close()
  await a.close()
})
test.after(dropSchemas)

test('a steer and a queued message sent through B are recorded once on A and reach the running reply and the next', async () => {
  const running = a.session('s1').reply('slow 300')
  while ((await a.session('s1').state()).status !== 'running') await tick()
  const steered = await b.session('s1').steer('via B')
  assert.is(steered.reply_id, (await a.session('s1').state()).reply_id)
  const queued = await b.session('s1').queue('queued via B')
  await running
  while ((await a.session('s1').state()).status !== 'idle' || (await a.session('s1').state()).queue.length) await tick(20)
  const log = await storeA.read('s1')
  const recorded = log.filter((e) => e.type === 'MESSAGE_STEERED' || e.type === 'MESSAGE_QUEUED')
  assert.equal(recorded.map((e) => e.type), ['MESSAGE_STEERED', 'MESSAGE_QUEUED'], 'each applied once')
  assert.ok(recorded.every((e) => typeof e.metadata.request_id === 'string'), 'tagged with its routed request')
  assert.equal(texts((await a.session('s1').state()).context), ['hello', 'slow 300', 'via B', 'queued via B'])
  assert.ok((await a.session('s1').state()).context.some((m) => m.id === queued.id))
  assert.equal(checkLog(log).violations, [])
})

test('a gentle Stop through B lets the tool finish and hands the queue back to B', async () => {
  const running = a.session('s1').reply('slow 200')
  while ((await a.session('s1').state()).status !== 'running') await tick()
  const queued = await b.session('s1').queue('never')
  const { queue } = await b.session('s1').interrupt({ when: 'step' })
  assert.equal(queue.map((e) => e.id), [queued.id])
  assert.is((await running).finished_reason, 'interrupted')
  const log = await storeA.read('s1')
  const ends = log.filter((e) => e.type === 'TOOL_RESULT_END').map((e) => e.type === 'TOOL_RESULT_END' && e.state)
  assert.equal(ends, ['success'], 'the running tool finished with its real result')
  assert.equal(checkLog(log).violations, [])
})

if (postgresAvailable('spec/postgres/talk.spec.ts')) test.run()
