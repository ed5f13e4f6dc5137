// The contract of sub-agents in a hub, run on each store: a sub-agent is a session of the hub's
// store, listed with its parent, readable from its log, answerable from its root or its own
// session, in the owner and (after the owner closed) in the next process, and held with its root
// only until its reply has ended.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { AgentError, SessionStore } from '../../../lib/index.js'
import { probe } from '../../helpers/fixtures.js'
import { checkStoredLog, childOf, eventually, treeHub } from './hubTree.js'
import { hubTreeSafety } from './hubTreeSafety.js'

/** `makeStore(key)`: a store; the same key gives a store on the same sessions (another process's view, for durable stores). */
export const hubTreeContract = (name: string, makeStore: (key: string) => Promise<SessionStore>, options: { durable: boolean }) => {
  const test = suite(`subagents/hub sessions (${name})`)
  let n = 0
  const key = () => `${name}-${process.pid}-${Date.now()}-${n++}`

  test("a sub-agent is a session of the hub's store: listed with its parent, linked both ways, its log stored", async () => {
    const p = probe()
    const store = await makeStore(key())
    const hub = treeHub(store, p)
    const { session_id } = await hub.create()
    await hub.session(session_id).reply('go')
    const rootLog = await store.read(session_id)
    const child = childOf(rootLog)
    const listed = (await hub.list({ limit: 100 })).items.find((s) => s.session_id === child)
    assert.ok(listed, 'the sub-agent session is listed')
    assert.equal((listed!.metadata as { parent?: unknown }).parent, { session_id, reply_id: rootLog.find((e) => e.type === 'REPLY_START')!.reply_id, tool_call_id: 'c1' })
    const childState = await hub.session(child).state()
    assert.is(childState.status, 'paused')
    assert.equal(childState.waiting_for.map((c) => c.id), ['d1'])
    const childLog = await store.read(child)
    const start = childLog.find((e) => e.type === 'REPLY_START')!
    assert.equal((start.metadata as { parent?: { session_id: string } }).parent?.session_id, session_id)
    await hub.close()
  })

  test("approve on the root's session answers the sub-agent's call; the sub-agent, then the root, finish; every stored log is consistent; the sub-agent's session is held with its root only until its reply ended", async () => {
    const p = probe()
    const store = await makeStore(key())
    const hub = treeHub(store, p)
    const { session_id } = await hub.create()
    const root = hub.session(session_id)
    await root.reply('go')
    const child = childOf(await store.read(session_id))
    /** The code a writer of another hub gets opening `id` (null: it opened it). */
    const opening = (id: string) => store.open(id).then(async (log) => (await log.close(), null), (error: AgentError) => error.code)
    assert.is(await opening(child), 'SESSION_BUSY', 'held with the root while it waits')
    await root.approve('d1')
    await eventually('the root is idle', async () => (await root.state()).status === 'idle')
    assert.equal(p.started.map((s) => s.id), ['d1'])
    // Let go once its reply ended: its log closed, its lease released; the root stays open.
    await eventually('the sub-agent is let go', async () => (await opening(child)) === null)
    assert.is(await opening(session_id), 'SESSION_BUSY', 'the root stays open')
    assert.is((await hub.session(child).state()).status, 'idle')
    assert.match(JSON.stringify((await root.state()).context.at(-1)), /Done\./)
    for (const id of [session_id, child]) checkStoredLog(await store.read(id), id)
    await hub.close()
  })

  test("approve on the sub-agent's own session resumes it, and its end answers the root's call", async () => {
    const p = probe()
    const store = await makeStore(key())
    const hub = treeHub(store, p)
    const { session_id } = await hub.create()
    await hub.session(session_id).reply('go')
    const child = childOf(await store.read(session_id))
    await hub.session(child).approve('d1')
    await eventually('the root is idle', async () => (await hub.session(session_id).state()).status === 'idle')
    assert.is((await hub.session(session_id).state()).context.at(-1)!.finished_reason, 'completed')
    for (const id of [session_id, child]) checkStoredLog(await store.read(id), id)
    await hub.close()
  })

  if (options.durable) {
    test('a parked tree left by one hub is answered in the next, from the root or from the sub-agent: the sub-agent reopens from its session', async () => {
      for (const via of ['root', 'child'] as const) {
        const k = key()
        const first = treeHub(await makeStore(k), probe())
        const { session_id } = await first.create()
        await first.session(session_id).reply('go')
        await first.close()
        const p = probe()
        const store = await makeStore(k)
        const hub = treeHub(store, p)
        const child = childOf(await store.read(session_id))
        await hub.session(via === 'root' ? session_id : child).approve('d1')
        await eventually(`the root is idle (approved via the ${via})`, async () => (await hub.session(session_id).state()).status === 'idle')
        assert.equal(p.started.map((s) => s.id), ['d1'], `approved via the ${via}`)
        assert.match(JSON.stringify((await hub.session(session_id).state()).context.at(-1)), /Done\./)
        for (const id of [session_id, child]) checkStoredLog(await store.read(id), id)
        await hub.close()
      }
    })
  }

  hubTreeSafety(test, makeStore, key, options)
  return test
}

