// Issue 28 item 4: nothing a client sends sets the links between sessions, and every walk over
// links (a sub-agent's walk up to its root, what a tree waits for, sessionTree, followTree, fork)
// refuses a crafted or imported log that links its sessions in a cycle with a coded error instead of
// looping. Run on each store (memory and directory here; PostgreSQL and NATS where they run the contracts).
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { firstValueFrom, toArray } from 'rxjs'
import { createHub, createServer, replay, type AgentError, type AgentEvent, type SessionStore } from '../../lib/index.js'
import { sessionTreeAgent } from '../helpers/sessionModel.js'

/** Rejects with `what` timed out when `promise` has not settled after a while (a hang is the defect). */
export const settles = <T>(promise: Promise<T>, what: string, ms = 5000): Promise<T> => {
  let timer: ReturnType<typeof setTimeout> | undefined
  const hang = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`${what} never settled`)), ms) })
  return Promise.race([promise, hang]).finally(() => clearTimeout(timer))
}

/** The code `promise` rejects with (null when it resolves). */
export const codeOf = (promise: Promise<unknown>): Promise<string | null> => promise.then(() => null, (error: AgentError) => error.code ?? String(error))

/** Stores `events` as session `session_id` of `store` (a log imported from elsewhere). */
export const importLog = async (store: SessionStore, session_id: string, events: AgentEvent[], metadata: Record<string, unknown> = {}) => {
  await store.create({ session_id, metadata })
  const log = await store.open(session_id)
  log.append(events.map((event, i) => ({ ...event, metadata: { ...event.metadata, seq: i + 1 } }) as AgentEvent), { expectedSeq: 0 })
  await log.flush?.()
  await log.close()
}

/** The log of a session paused on an external call `lookup` (made by a real hub on a scratch store). */
const pausedLog = async (makeStore: () => Promise<SessionStore>): Promise<AgentEvent[]> => {
  const store = await makeStore()
  const scratch = createHub({ store, sweepMs: false, agent: sessionTreeAgent(1) })
  const { session_id } = await scratch.create()
  await scratch.session(session_id).reply('ext q')
  const events = await store.read(session_id)
  await scratch.close()
  return events
}

/** The parent link naming the sub-agent call (the first TOOL_RESULT_START) of `events` as stored in session `session_id`: a forged back link (a link counts only both ways). */
const callOf = (events: AgentEvent[], session_id: string) => {
  const start = events.find((e) => e.type === 'TOOL_RESULT_START') as Extract<AgentEvent, { type: 'TOOL_RESULT_START' }>
  return { parent: { session_id, reply_id: start.reply_id, tool_call_id: start.tool_call_id } }
}

/** `events` with the sub-agent call's (the first TOOL_RESULT_START's) child named `child`. */
const withChild = (events: AgentEvent[], child: string): AgentEvent[] => {
  let done = false
  return events.map((e) => (e.type === 'TOOL_RESULT_START' && !done && (done = true) ? { ...e, metadata: { ...e.metadata, child_session_id: child } } : e))
}

export const linksContract = (name: string, makeStore: () => Promise<SessionStore>) => {
  const test = suite(`hub/links (${name})`)
  let n = 0
  const id = (what: string) => `${what}-${process.pid}-${Date.now()}-${n++}`

  test('a client cannot set a link: metadata parent / child_session_id in reply options, input events, external results and a new session are refused', async () => {
    const store = await makeStore()
    const hub = createHub({ store, sweepMs: false, agent: sessionTreeAgent(1) })
    const { session_id } = await hub.create()
    const session = hub.session(session_id)
    for (const key of ['parent', 'child_session_id']) {
      assert.is(await codeOf(session.reply('hi', { metadata: { [key]: { session_id } } })), 'INVALID_OPTION', `reply option metadata.${key}`)
      assert.is(await codeOf(hub.create({ metadata: { [key]: { session_id, reply_id: 'r', tool_call_id: 'c' } } })), 'INVALID_OPTION', `a new session's metadata.${key}`)
    }
    await session.reply('ext q')
    const waiting = (await session.state()).waiting_for[0]
    for (const key of ['parent', 'child_session_id', 'session_id']) {
      assert.is(await codeOf(session.submitResult(waiting.id, { output: 'x', metadata: { [key]: session_id } })), 'INVALID_INPUT', `an external result's metadata.${key}`)
      const event = { id: id('e'), created_at: new Date().toISOString(), metadata: { [key]: session_id }, type: 'USER_INTERRUPT', reply_id: (await session.state()).reply_id }
      assert.is(await codeOf(session.dispatch(event as never)), 'INVALID_INPUT', `an input event's metadata.${key}`)
    }
    assert.is((await session.state()).status, 'paused', 'nothing refused was applied')
    assert.equal(await session.waiting().then((w) => w.map((c) => c.id)), [waiting.id])
    await hub.close()
  })

  test('POST /sessions/:id/input with an external result naming the session as its child is refused 400, and /waiting still answers', async () => {
    const store = await makeStore()
    const hub = createHub({ store, sweepMs: false, agent: sessionTreeAgent(1) })
    const handler = createServer({ hub })
    const { session_id } = await hub.create()
    await hub.session(session_id).reply('ext q')
    const call = (await hub.session(session_id).state()).waiting_for[0].id
    const input = { type: 'EXTERNAL_EXECUTION_RESULT', id: id('e'), created_at: new Date().toISOString(), metadata: {}, reply_id: (await hub.session(session_id).state()).reply_id,
      execution_results: [{ type: 'tool_result', id: call, name: 'lookup', output: 'x', state: 'success', metadata: { child_session_id: session_id }, created_at: new Date().toISOString(), finished_at: null }] }
    const response = await handler(new Request(`http://localhost/sessions/${session_id}/input`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(input) }))
    assert.is(response.status, 400)
    assert.is(((await response.json()) as { code: string }).code, 'INVALID_INPUT')
    const waiting = await settles(handler(new Request(`http://localhost/sessions/${session_id}/waiting`)), 'GET /waiting')
    assert.is(waiting.status, 200)
    await hub.close()
  })

  test('a stored log whose sub-agent call names its own session (and the session that call): waiting, tree, follow with descendants and fork are refused INVALID_LOG, nothing hangs', async () => {
    const store = await makeStore()
    const events = await pausedLog(makeStore)
    const self = id('self')
    await importLog(store, self, withChild(events, self), callOf(events, self))
    const hub = createHub({ store, sweepMs: false, agent: sessionTreeAgent(1) })
    const session = hub.session(self)
    assert.is(await settles(codeOf(session.waiting()), 'waiting()'), 'INVALID_LOG')
    assert.is(await settles(codeOf(session.tree()), 'tree()'), 'INVALID_LOG')
    assert.is(await settles(codeOf(firstValueFrom(session.follow({ descendants: true }).pipe(toArray()))), 'follow({ descendants })'), 'INVALID_LOG')
    const handler = createServer({ hub })
    const response = await settles(handler(new Request(`http://localhost/sessions/${self}/waiting`)), 'GET /waiting')
    assert.ok(response.status >= 400, `GET /waiting answers an error (${response.status})`)
    await settles(hub.close(), 'hub.close()')
  })

  test("two stored sessions whose calls name each other as sub-agents (and each names the other one's call as its parent): waiting and tree are refused INVALID_LOG", async () => {
    const store = await makeStore()
    const events = await pausedLog(makeStore)
    const [a, b] = [id('a'), id('b')]
    await importLog(store, a, withChild(events, b), callOf(events, b))
    await importLog(store, b, withChild(events.map((e) => ('session_id' in e && e.type === 'REPLY_START' ? { ...e, session_id: b } : e)), a), callOf(events, a))
    const hub = createHub({ store, sweepMs: false, agent: sessionTreeAgent(1) })
    assert.is(await settles(codeOf(hub.session(a).waiting()), 'waiting()'), 'INVALID_LOG')
    assert.is(await settles(codeOf(hub.session(a).tree()), 'tree()'), 'INVALID_LOG')
    await settles(hub.close(), 'hub.close()')
  })

  test('a stored sub-agent reply whose parent is its own session: opening it is refused INVALID_LOG, approve settles, the hub closes', async () => {
    const store = await makeStore()
    const scratchStore = await makeStore()
    const scratch = createHub({ store: scratchStore, sweepMs: false, agent: sessionTreeAgent(1) })
    const { session_id: root } = await scratch.create()
    await scratch.session(root).reply('delegate ask /a')
    const rootEvents = await scratchStore.read(root)
    const child = rootEvents.find((e) => e.type === 'TOOL_RESULT_START')!.metadata.child_session_id as string
    const childEvents = await scratchStore.read(child)
    await scratch.close()
    const self = id('self')
    const forged = childEvents.map((e) => (e.type === 'REPLY_START' ? { ...e, session_id: self, metadata: { ...e.metadata, parent: { ...(e.metadata.parent as object), session_id: self } } } : e))
    await importLog(store, self, forged)
    const hub = createHub({ store, sweepMs: false, agent: sessionTreeAgent(1) })
    const call = replay(forged).waiting_for[0].id
    assert.is(await settles(codeOf(hub.session(self).approve(call)), 'approve()'), 'INVALID_LOG')
    assert.is(await settles(codeOf(hub.session(self).interrupt()), 'interrupt()'), 'INVALID_LOG')
    await settles(hub.close(), 'hub.close()')
  })

  return test
}
