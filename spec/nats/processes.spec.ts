// Many processes, one NATS server: child processes, each with its own hub on the same store name.
// A reply started in A is interrupted through B; a reply paused in A is approved through C after
// A has exited; the owner is SIGKILLed mid-reply and nothing acknowledged is lost, the next owner
// closing the cut reply as interrupted (crash = interrupt); with no command at all, a live hub's
// sweep closes a reply whose owner was SIGKILLed; a killed owner's session moves without
// waiting for its lease; a request waiting for an owner that hangs is answered once by the caller,
// after the owner's lease ran out; two processes racing to own one session: exactly one writes.
import { isDeepStrictEqual } from 'node:util'
import { filter, firstValueFrom, timeout } from 'rxjs'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createHub, replay } from '../../lib/index.js'
import type { NatsStore } from '../../lib/nats.js'
import { checkLog } from '../../lib/core/logCheck.js'
import { DEFAULT_SWEEP_MS } from '../../lib/hub/sweeper.js'
import { sessionAgent } from '../helpers/sessionModel.js'
import { startHubChild, type HubChild } from '../postgres/helpers/children.js'
import { dropNames, freshStore, NATS_URL, natsAvailable, newName } from './helpers/server.js'

const test = suite('nats/processes')
let store: NatsStore
let name: string
const children: HubChild[] = []
const child = async () => {
  const c = await startHubChild(name, NATS_URL)
  children.push(c)
  return c
}
/** Far above the documented bound (a sweep interval plus an open), far below the lease: only a reply never closed fails it. */
const SWEEP_PATIENCE_MS = 30 * DEFAULT_SWEEP_MS
const waitUntil = async (done: () => Promise<boolean>, what: string) => {
  for (let i = 0; i < 500; i++) {
    if (await done()) return
    await new Promise((r) => setTimeout(r, 20))
  }
  assert.unreachable(`timed out waiting until ${what}`)
}

test.before.each(async () => {
  name = newName()
  store = freshStore({}, name)
  await store.migrate()
})
test.after.each(async () => {
  for (const c of children.splice(0)) await c.kill()
  await store.close()
})
test.after(dropNames)

test('a reply started in A is interrupted through B: A\'s reply ends interrupted, B resolves after REPLY_END is stored', async () => {
  await store.create({ session_id: 's1' })
  const [a, b] = await Promise.all([child(), child()])
  const reply = a.request('reply', 's1', { input: 'slow 10000' })
  await a.waitFor((l) => l.id === reply.id && l.event === 'TOOL_RESULT_START')
  const interrupted = await b.request('interrupt', 's1').answer
  assert.ok(interrupted.ok, JSON.stringify(interrupted))
  const events = await store.read('s1')
  const end = events.at(-1)!
  assert.is(end.type === 'REPLY_END' && end.finished_reason, 'interrupted', 'REPLY_END is in the stream when B resolves')
  const answer = await reply.answer
  assert.is((answer.types as string[]).at(-1), 'REPLY_END')
  assert.equal(checkLog(events).violations, [])
})

test('a reply paused in A is approved through C after A has exited, and completes', async () => {
  await store.create({ session_id: 's1' })
  const a = await child()
  const asked = await a.request('reply', 's1', { input: 'ask /tmp/a' }).answer
  assert.is((asked.types as string[]).at(-1), 'REQUIRE_USER_CONFIRM')
  await a.request('close', 's1').answer
  assert.is(await a.exited, 0)
  const c = await child()
  const approved = await c.request('approve', 's1').answer
  assert.ok(approved.ok, JSON.stringify(approved))
  assert.is((approved.events as string[])[0], 'USER_CONFIRM_RESULT')
  await waitUntil(async () => (await store.info('s1')).status === 'idle', 'the reply completes')
  const events = await store.read('s1')
  assert.equal(checkLog(events).violations, [])
  const end = events.at(-1)!
  assert.is(end.type === 'REPLY_END' && end.finished_reason, 'completed')
  assert.ok(JSON.stringify(replay(events).context.at(-1)).includes('deleted /tmp/a'))
})

test('the owner SIGKILLed mid-reply 4 times: nothing acknowledged is lost, the next owner closes the reply, replay equals the state', async () => {
  await store.create({ session_id: 's1' })
  const acked = new Map<number, string>()
  let next = child()
  for (let round = 0; round < 4; round++) {
    const owner = await next
    if (round < 3) next = child()
    const loop = owner.request('loop', 's1', { input: 'stream 12' })
    await owner.waitFor((l) => l.id === loop.id && l.acked !== undefined)
    await new Promise((r) => setTimeout(r, Math.random() * 120))
    await owner.kill('SIGKILL')
    children.splice(children.indexOf(owner), 1)
    for (const l of owner.lines) if (l.acked !== undefined) acked.set(l.acked, l.reply_id!)
  }
  const hub = createHub({ store, agent: sessionAgent(1) })
  const handle = hub.session('s1')
  // The last owner's lease runs out first (SESSION_BUSY until then).
  let reply: Awaited<ReturnType<typeof handle.reply>> | undefined
  await waitUntil(async () => !!(reply = await handle.reply('after the crashes').catch((e: { code?: string }) => {
    if (e.code !== 'SESSION_BUSY') throw e
    return undefined
  })), 'the lease of the killed owner runs out')
  const events = await store.read('s1')
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

test('the owner SIGKILLed mid-reply, no command sent: a live hub\'s sweep closes the reply (interrupted, every call answered); its follower and state() see it, before the lease would run out', async () => {
  // A lease of a minute: only the dead owner's silence on its ping subject tells the sweep it died.
  name = newName()
  await store.close()
  store = freshStore({ leaseMs: 60_000 }, name)
  await store.create({ session_id: 's1' })
  const hub = createHub({ store, agent: sessionAgent(1) })
  try {
    process.env.NATS_LEASE_MS = '60000'
    const owner = await child().finally(() => delete process.env.NATS_LEASE_MS)
    const reply = owner.request('reply', 's1', { input: 'slow 60000' })
    await owner.waitFor((l) => l.id === reply.id && l.event === 'TOOL_RESULT_START')
    await waitUntil(async () => (await store.read('s1')).some((e) => e.type === 'TOOL_RESULT_START'), 'the tool call is stored')
    const end = firstValueFrom(hub.session('s1').follow().pipe(filter((e) => e.type === 'REPLY_END'), timeout({ first: SWEEP_PATIENCE_MS })))
    await owner.kill('SIGKILL')
    children.splice(children.indexOf(owner), 1)
    const seen = await end
    assert.is(seen.type === 'REPLY_END' && seen.finished_reason, 'interrupted')
    const state = await hub.session('s1').state()
    assert.is(state.status, 'idle')
    assert.equal(state.context.at(-1)!.content.map((b) => b.type), ['tool_call', 'tool_result'], 'the cut tool call has its result')
    const events = await store.read('s1')
    assert.equal(checkLog(events).violations, [])
    assert.ok(isDeepStrictEqual(replay(events, undefined, { strict: true }), state), 'replay equals the state')
    assert.equal(await store.orphans!(), [], 'nothing is left to sweep')
  } finally {
    await hub.close()
  }
})

test('a SIGKILLed owner\'s session moves at once, without waiting for its lease to run out', async () => {
  // A lease of a minute: only the dead owner's silence on its ping subject can free the session.
  name = newName()
  await store.close()
  store = freshStore({ leaseMs: 60_000 }, name)
  await store.create({ session_id: 's1' })
  process.env.NATS_LEASE_MS = '60000'
  const a = await child().finally(() => delete process.env.NATS_LEASE_MS)
  const loop = a.request('loop', 's1', { input: 'stream 50' })
  await a.waitFor((l) => l.id === loop.id && l.acked !== undefined)
  await a.kill('SIGKILL')
  await waitUntil(async () => {
    const log = await store.open('s1').catch((e: { code?: string }) => {
      if (e.code !== 'SESSION_BUSY') throw e
      return null
    })
    await log?.close()
    return log !== null
  }, 'the session is free (well before its lease of a minute runs out)')
  const hub = createHub({ store, agent: sessionAgent(1) })
  try {
    const reply = await hub.session('s1').reply('after the kill')
    assert.is(reply.finished_reason, 'completed')
    assert.equal(checkLog(await store.read('s1')).violations, [], 'a reply cut by the kill was closed before the new one ran')
  } finally {
    await hub.close()
  }
})

test('a request waiting for an owner that hangs is answered once by the caller, after the owner\'s lease ran out', async () => {
  await store.create({ session_id: 's1' })
  const a = await child()
  const asked = await a.request('reply', 's1', { input: 'ask /tmp/q' }).answer
  assert.is((asked.types as string[]).at(-1), 'REQUIRE_USER_CONFIRM')
  process.kill(a.pid, 'SIGSTOP') // the owner hangs, holding its lease until it runs out
  const hub = createHub({ store, agent: sessionAgent(1) })
  try {
    const call = (await hub.session('s1').state()).waiting_for[0]
    const caused = await hub.session('s1').dispatch({ approve: call.id })
    assert.is(caused[0].type, 'USER_CONFIRM_RESULT')
    await a.kill('SIGKILL')
    const events = await store.read('s1')
    assert.is(events.filter((e) => e.type === 'USER_CONFIRM_RESULT').length, 1, 'applied once')
  } finally {
    await hub.close()
  }
})

test('two processes racing to own one session: exactly one writes', async () => {
  for (let round = 0; round < 3; round++) {
    const id = `race-${round}`
    await store.create({ session_id: id })
    const [a, b] = await Promise.all([child(), child()])
    const answers = await Promise.all([a.request('open', id).answer, b.request('open', id).answer])
    assert.is(answers.filter((x) => x.owner === true).length, 1, JSON.stringify(answers))
    assert.is(answers.find((x) => x.owner === false)?.code, 'SESSION_BUSY')
    const events = await store.read(id)
    assert.is(events.length, 1, 'one event, by the owner')
    for (const c of children.splice(0)) await c.kill()
  }
})

if (natsAvailable('spec/nats/processes.spec.ts')) test.run()
