// Issue 28: the promises a hub keeps for sub-agents that go wrong, run on each store with the
// contract of hubTreeContract.ts: a sub-agent that cannot start (its agent() options refused, its
// hook throwing) gives its call a coded `error` result, crashes nothing, and holds no session or lease.
import type { Test } from 'uvu'
import * as assert from 'uvu/assert'
import { z } from 'zod'
import { agentTool, callTool, createHub, defineTool, say, scriptedModel, type AgentError, type SessionStore, type SubagentOptions } from '../../../lib/index.js'
import { answering, checkStoredLog, childOf, eventually, treeHub } from './hubTree.js'
import { probe } from '../../helpers/fixtures.js'
import { codeOf, importLog, settles } from '../../hub/linksContract.js'

const noop = defineTool({ name: 'noop', description: 'N', input: z.object({}), execute: () => 'ok' })
const model = scriptedModel([[]], { onExhausted: 'repeat-last' })

/** Sub-agent definitions that cannot start, by what is wrong with them. */
const broken: Record<string, () => SubagentOptions> = {
  'a model picked by a name that does not exist': () => ({ name: 'Helper', model: undefined as never }),
  'an empty name': () => ({ name: '', model }),
  'duplicate tools': () => ({ name: 'Helper', model, tools: [noop, noop] }),
  'maxIters 0': () => ({ name: 'Helper', model, maxIters: 0 }),
  'a hook that throws': () => {
    throw new Error('the hook failed')
  },
}

/** Records unhandled rejections while `run` runs. */
const unhandledDuring = async (run: () => Promise<void>): Promise<unknown[]> => {
  const seen: unknown[] = []
  const listener = (reason: unknown) => void seen.push(reason)
  process.on('unhandledRejection', listener)
  try {
    await run()
    await new Promise((resolve) => setTimeout(resolve, 20))
  } finally {
    process.off('unhandledRejection', listener)
  }
  return seen
}

export const hubTreeSafety = (test: Test, makeStore: (key: string) => Promise<SessionStore>, key: () => string, options: { durable: boolean }) => {
  for (const [what, agent] of Object.entries(broken)) {
    test(`a sub-agent that cannot start (${what}): its call gets a coded error result, the lead goes on, nothing crashes, no session or lease is left held`, async () => {
      const store = await makeStore(key())
      const tool = agentTool({ name: 'helper', description: 'H', agent })
      const hub = createHub({ store, sweepMs: false, agent: () => ({ name: 'Lead', tools: [tool], model: answering(callTool('c1', 'helper', { task: 'go' }), 'Done without help.') }) })
      const { session_id } = await hub.create()
      const unhandled = await unhandledDuring(async () => {
        const msg = await hub.session(session_id).reply('go')
        assert.is(msg.finished_reason, 'completed')
        assert.match(JSON.stringify(msg.content), /Done without help\./)
      })
      assert.equal(unhandled.map(String), [], 'no unhandled rejection')
      const end = (await store.read(session_id)).find((e) => e.type === 'TOOL_RESULT_END' && e.tool_call_id === 'c1')
      assert.ok(end && end.type === 'TOOL_RESULT_END' && end.state === 'error', 'the call ended with an error result')
      const code = (end.metadata.error as { code?: unknown } | undefined)?.code
      assert.type(code, 'string', 'the error result carries a code')
      // No other session is held: each one opens elsewhere (another writer), none is left behind busy.
      const others = (await hub.list({ limit: 100 })).items.filter((s) => s.session_id !== session_id)
      for (const other of others) {
        const opened = await store.open(other.session_id).then(async (log) => (await log.close(), null), (error: AgentError) => error.code)
        assert.is(opened, null, `the sub-agent's session ${other.session_id} is not held`)
      }
      await hub.close()
    })
  }

  test('a hook that throws on every call leaks nothing: ten calls, ten error results, the hub closes', async () => {
    const store = await makeStore(key())
    let calls = 0
    const tool = agentTool({ name: 'helper', description: 'H', agent: () => {
      calls++
      throw new Error('no')
    } })
    const lead = scriptedModel([callTool('c1', 'helper', { task: 'go' }), ...Array.from({ length: 9 }, (_, i) => callTool(`c${i + 2}`, 'helper', { task: 'go' })), say('Gave up.')])
    const hub = createHub({ store, sweepMs: false, agent: () => ({ name: 'Lead', tools: [tool], model: lead }) })
    const { session_id } = await hub.create()
    await hub.session(session_id).reply('go')
    assert.is(calls, 10)
    const ends = (await store.read(session_id)).filter((e) => e.type === 'TOOL_RESULT_END')
    assert.equal(ends.map((e) => e.type === 'TOOL_RESULT_END' && e.state), Array(10).fill('error'))
    assert.equal((await hub.list({ limit: 100 })).items.map((s) => s.session_id), [session_id], 'no sub-agent session was made')
    await eventually('the hub closes', async () => (await hub.close(), true))
  })

  test("a root whose running reply's sub-agent session was never created (its owner died between the call's start and the session's creation) opens: the cut reply is closed, the root answers again", async () => {
    const scratch = await makeStore(key())
    const first = treeHub(scratch, probe())
    const { session_id } = await first.create()
    await first.session(session_id).reply('go')
    const events = await scratch.read(session_id)
    await first.close()
    const cut = events.slice(0, events.findIndex((e) => e.type === 'TOOL_RESULT_START' && typeof e.metadata.child_session_id === 'string') + 1)
    const store = await makeStore(key())
    await importLog(store, session_id, cut)
    const hub = treeHub(store, probe())
    const state = await settles(hub.session(session_id).waiting().then(() => hub.session(session_id).interrupt()).then(() => hub.session(session_id).state()), 'opening the root')
    assert.is(state.status, 'idle', 'the cut reply is closed')
    const log = await store.read(session_id)
    const end = log.at(-1)!
    assert.ok(end.type === 'REPLY_END' && end.finished_reason === 'interrupted', `the root's log ends REPLY_END(interrupted), not ${end.type}`)
    assert.ok(log.some((e) => e.type === 'TOOL_RESULT_END' && e.tool_call_id === 'c1'), 'the sub-agent call has its result')
    checkStoredLog(log, session_id)
    assert.equal(await hub.session(session_id).waiting(), [])
    await hub.close()
  })

  if (options.durable) {
    test("a parked tree whose sub-agent's session was deleted behind the hub's back: the root opens, its call is closed as cut, it can be sent a message again", async () => {
      const k = key()
      const first = treeHub(await makeStore(k), probe())
      const { session_id } = await first.create()
      await first.session(session_id).reply('go')
      await first.close()
      const store = await makeStore(k)
      const child = childOf(await store.read(session_id))
      await store.delete(child)
      const hub = treeHub(store, probe())
      await settles(hub.session(session_id).interrupt(), 'interrupt()')
      const log = await store.read(session_id)
      const end = log.at(-1)!
      assert.ok(end.type === 'REPLY_END' && end.finished_reason === 'interrupted', `the root's log ends REPLY_END(interrupted), not ${end.type}`)
      checkStoredLog(log, session_id)
      assert.equal(await hub.session(session_id).waiting(), [], 'nothing is listed as waiting')
      const again = await settles(hub.session(session_id).reply('again'), 'a new message')
      assert.is(again.finished_reason, 'completed')
      await hub.close()
    })
  }

  test('deleting a sub-agent whose parent still waits on it is refused SESSION_BUSY (held here, or left parked by another hub); the tree stays answerable', async () => {
    const k = key()
    const p = probe()
    let store = await makeStore(k)
    let hub = treeHub(store, p)
    const { session_id } = await hub.create()
    await hub.session(session_id).reply('go')
    const child = childOf(await store.read(session_id))
    assert.is(await codeOf(hub.delete(child)), 'SESSION_BUSY')
    if (options.durable) {
      await hub.close()
      store = await makeStore(k)
      hub = treeHub(store, p)
      assert.is(await codeOf(hub.delete(child)), 'SESSION_BUSY', 'refused with nothing held')
    }
    await hub.session(session_id).approve('d1')
    await eventually('the root is idle', async () => (await hub.session(session_id).state()).status === 'idle')
    assert.equal(p.started.map((s) => s.id), ['d1'])
    await hub.close()
  })

  test("deleting a root deletes its sub-agents' sessions: nothing of the tree stays listed or readable", async () => {
    const store = await makeStore(key())
    const hub = treeHub(store, probe())
    const { session_id } = await hub.create()
    await hub.session(session_id).reply('go')
    const child = childOf(await store.read(session_id))
    await hub.session(session_id).approve('d1')
    await eventually('the root is idle', async () => (await hub.session(session_id).state()).status === 'idle')
    await hub.delete(session_id)
    const listed = (await hub.list({ limit: 100 })).items.map((s) => s.session_id)
    assert.not.ok(listed.includes(child), 'the sub-agent session is not listed')
    assert.is(await codeOf(store.read(child)), 'NOT_FOUND')
    assert.is(await codeOf(store.read(session_id)), 'NOT_FOUND')
    await hub.close()
  })

  test("a new message to a finished sub-agent's session is refused with a coded error naming its parent, never answered by the root's definition; a Stop is a no-op", async () => {
    const store = await makeStore(key())
    const hub = treeHub(store, probe())
    const { session_id } = await hub.create()
    await hub.session(session_id).reply('go')
    const child = childOf(await store.read(session_id))
    await hub.session(session_id).approve('d1')
    await eventually('the root is idle', async () => (await hub.session(session_id).state()).status === 'idle')
    await eventually('the sub-agent is let go', async () => (await store.open(child).then(async (log) => (await log.close(), true), () => false)))
    const before = (await store.read(child)).length
    for (const send of [() => hub.session(child).reply('hello'), () => hub.session(child).dispatch('hello'), async () => { for await (const _ of hub.session(child).replyStream('hello')) void _ }]) {
      const refused = await send().then(() => null, (error: AgentError) => error)
      assert.is(refused?.code, 'INVALID_INPUT')
      assert.match(refused!.message, session_id, 'the refusal names the parent to talk to')
    }
    await hub.session(child).interrupt()
    assert.is((await store.read(child)).length, before, "nothing was added to the sub-agent's log")
    await hub.close()
  })
}
