// Many processes, one database: child processes, each with its own hub on the same schema. A
// reply started in A is interrupted through B; a reply paused in A is approved through C after A
// has exited; the owner is SIGKILLed mid-reply 20 times and nothing acknowledged is lost; a request
// left waiting by an owner that hangs and dies is answered by the caller; two processes racing to
// own one session: exactly one writes.
import { isDeepStrictEqual } from 'node:util'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createHub, replay } from '../../lib/index.js'
import { checkLog } from '../../lib/core/logCheck.js'
import { sessionAgent } from '../helpers/sessionModel.js'
import { withChildren } from './helpers/children.js'
import { admin, postgresAvailable } from './helpers/db.js'

const test = suite('postgres/processes')
const pg = withChildren(test)
const child = () => pg.child()

test('a reply started in A is interrupted through B: A\'s reply ends interrupted, B resolves after REPLY_END is committed', async () => {
  await pg.store.create({ session_id: 's1' })
  const [a, b] = await Promise.all([child(), child()])
  const reply = a.request('reply', 's1', { input: 'slow 10000' })
  await a.waitFor((l) => l.id === reply.id && l.event === 'TOOL_RESULT_START')
  const interrupted = await b.request('interrupt', 's1').answer
  assert.ok(interrupted.ok, JSON.stringify(interrupted))
  const events = await pg.store.read('s1')
  const end = events.at(-1)!
  assert.is(end.type === 'REPLY_END' && end.finished_reason, 'interrupted', 'REPLY_END is in the database when B resolves')
  const answer = await reply.answer
  assert.is((answer.types as string[]).at(-1), 'REPLY_END')
  assert.equal(checkLog(events).violations, [])
})

test('a reply paused in A is approved through C after A has exited, and completes', async () => {
  await pg.store.create({ session_id: 's1' })
  const a = await child()
  const asked = await a.request('reply', 's1', { input: 'ask /tmp/a' }).answer
  assert.is((asked.types as string[]).at(-1), 'REQUIRE_USER_CONFIRM')
  await a.request('close', 's1').answer
  assert.is(await a.exited, 0)
  const c = await child()
  const approved = await c.request('approve', 's1').answer
  assert.ok(approved.ok, JSON.stringify(approved))
  assert.is((approved.events as string[])[0], 'USER_CONFIRM_RESULT')
  for (let i = 0; i < 100 && (await pg.store.info('s1')).status !== 'idle'; i++) await new Promise((r) => setTimeout(r, 20))
  const events = await pg.store.read('s1')
  assert.equal(checkLog(events).violations, [])
  const end = events.at(-1)!
  assert.is(end.type === 'REPLY_END' && end.finished_reason, 'completed')
  assert.ok(JSON.stringify(replay(events).context.at(-1)).includes('deleted /tmp/a'))
})

test('the owner SIGKILLed mid-reply 20 times: nothing acknowledged is lost, the next owner closes the reply, replay equals the state', async () => {
  await pg.store.create({ session_id: 's1' })
  const acked = new Map<number, string>()
  // The next owner starts while the current one runs (it touches nothing until asked).
  let next = child()
  for (let round = 0; round < 20; round++) {
    const owner = await next
    if (round < 19) next = child()
    const loop = owner.request('loop', 's1', { input: 'stream 12' })
    await owner.waitFor((l) => l.id === loop.id && l.acked !== undefined)
    await new Promise((r) => setTimeout(r, Math.random() * 120))
    await pg.kill(owner)
    for (const l of owner.lines) if (l.acked !== undefined) acked.set(l.acked, l.reply_id!)
  }
  const hub = createHub({ store: pg.store, agent: sessionAgent(1) })
  const handle = hub.session('s1')
  await handle.reply('after the crashes')
  const events = await pg.store.read('s1')
  for (const [seq, reply_id] of acked) {
    const event = events[seq - 1]
    assert.ok(event?.type === 'REPLY_END' && event.reply_id === reply_id, `acknowledged REPLY_END ${seq} is stored`)
  }
  assert.equal(checkLog(events).violations, [])
  const ends = events.filter((e) => e.type === 'REPLY_END')
  assert.ok(ends.some((e) => e.type === 'REPLY_END' && e.finished_reason === 'interrupted'), 'cut replies were closed as interrupted')
  assert.is(ends.at(-1)!.type === 'REPLY_END' && ends.at(-1)!.finished_reason, 'completed', 'the next reply completes')
  assert.ok(isDeepStrictEqual(replay(events), await handle.state()), 'replay equals the state')
  await hub.close()
})

test('a request waiting for an owner that dies is answered by the caller taking the session over', async () => {
  await pg.store.create({ session_id: 's1' })
  const a = await child()
  const asked = await a.request('reply', 's1', { input: 'ask /tmp/q' }).answer
  assert.is((asked.types as string[]).at(-1), 'REQUIRE_USER_CONFIRM')
  process.kill(a.pid, 'SIGSTOP') // the owner hangs, holding its lease
  const hub = createHub({ store: pg.store, agent: sessionAgent(1) })
  const call = (await hub.session('s1').state()).waiting_for[0]
  const approving = hub.session('s1').dispatch({ approve: call.id })
  await new Promise((r) => setTimeout(r, 300))
  const [row] = await admin<{ n: string }>(`SELECT count(*) AS n FROM "${pg.schema}".requests WHERE NOT done`)
  assert.is(Number(row.n), 1, 'the request waits in its row')
  await a.kill('SIGKILL')
  const caused = await approving
  assert.is(caused[0].type, 'USER_CONFIRM_RESULT')
  await hub.close()
})

test('two processes racing to own one session: exactly one writes', async () => {
  for (let round = 0; round < 5; round++) {
    const id = `race-${round}`
    await pg.store.create({ session_id: id })
    const [a, b] = await Promise.all([child(), child()])
    const answers = await Promise.all([a.request('open', id).answer, b.request('open', id).answer])
    assert.is(answers.filter((x) => x.owner === true).length, 1, JSON.stringify(answers))
    assert.is(answers.find((x) => x.owner === false)?.code, 'SESSION_BUSY')
    const events = await pg.store.read(id)
    assert.is(events.length, 1, 'one event, by the owner')
    await pg.killAll()
  }
})

if (postgresAvailable('spec/postgres/processes.spec.ts')) test.run()
