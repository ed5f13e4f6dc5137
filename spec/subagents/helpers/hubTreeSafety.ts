// Issue 28: the promises a hub keeps for sub-agents that go wrong, run on each store with the
// contract of hubTreeContract.ts: a sub-agent that cannot start (its agent() options refused, its
// hook throwing) gives its call a coded `error` result, crashes nothing, and holds no session or lease.
import type { Test } from 'uvu'
import * as assert from 'uvu/assert'
import { z } from 'zod'
import { agentTool, callTool, createHub, defineTool, say, scriptedModel, type AgentError, type SessionStore, type SubagentOptions } from '../../../lib/index.js'
import { answering, eventually } from './hubTree.js'

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

export const hubTreeSafety = (test: Test, makeStore: (key: string) => Promise<SessionStore>, key: () => string) => {
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
}
