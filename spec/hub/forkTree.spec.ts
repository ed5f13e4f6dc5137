// forkTree on a store (memory): a tree of sessions forked at every seq of its root, each sub-agent
// session as it was then (exactly the events it had created before the root's event seq + 1, also
// when the whole tree ran within one millisecond), new sessions linked to each other, cut replies
// closed deepest first (a sub-agent parked under a cut reply interrupted with it), the original
// sessions untouched.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { z } from 'zod'
import { sleep } from '../../lib/core/abort.js'
import { agentTool, callTool, checkLog, createHub, defineTool, forkTree, memoryStore, replay, say, scriptedModel, sessionTree, type AgentEvent, type SessionTree } from '../../lib/index.js'
import { probe } from '../helpers/fixtures.js'
import { askingTool } from '../helpers/hitl.js'
import { checkForkedTree, leadOptions, recordingClock } from '../timeTravel/helpers/forkedTree.js'

const test = suite('hub/forkTree')

const ids = (t: SessionTree): string[] => [t.session_id, ...t.children.flatMap(ids)]

const forkEverySeq = async (now?: string) => {
  const { clock, rank } = recordingClock(now)
  const store = memoryStore()
  const agent = () => leadOptions(clock)
  const hub = createHub({ store, agent, sweepMs: false })
  const { session_id } = await hub.create()
  await hub.session(session_id).reply('go')
  await hub.session(session_id).reply('again')
  const tree = await sessionTree(store, session_id)
  assert.is(ids(tree).length, 7, 'three research sub-agents, each with a deep one')
  const logs = new Map<string, AgentEvent[]>()
  for (const id of ids(tree)) logs.set(id, await store.read(id))
  const original = logs.get(session_id)!
  const cut = new Set<number>()
  for (let seq = 0; seq <= original.length; seq++) {
    const forked = await forkTree(store, session_id, seq, agent)
    const forkedTree = await sessionTree(store, forked)
    const forkedLogs = new Map<string, AgentEvent[]>()
    for (const id of ids(forkedTree)) forkedLogs.set(id, await store.read(id))
    const { forks, cutDepths } = checkForkedTree(original, { session_id: forked, log: forkedLogs.get(forked)! }, seq, (id) => logs.get(id) ?? null, (id) => forkedLogs.get(id) ?? null, rank)
    cutDepths.forEach((d) => cut.add(d))
    assert.equal(new Set(ids(forkedTree)), new Set(forks.keys()), `seq ${seq}: the store's tree of the fork is the forked sessions`)
    for (const child of forkedTree.children.flatMap(function all(t): SessionTree[] { return [t, ...t.children.flatMap(all)] }))
      assert.ok(child.parent && forks.has(child.parent.session_id), `seq ${seq}: ${child.session_id}'s session names its forked parent`)
  }
  assert.equal([...cut].sort(), [0, 1, 2], 'some forks cut a reply running at every depth')
  for (const [id, events] of logs) assert.equal(await store.read(id), events, `${id} untouched`)
  return { store, session_id, hub }
}

test('a tree of sessions forked at every seq of its root forks its sub-agent sessions as they were then', async () => {
  const { hub } = await forkEverySeq()
  await hub.close()
})

test('the cut is exact when the whole tree ran within one millisecond', async () => {
  const { store, session_id, hub } = await forkEverySeq('2026-01-01T00:00:00.000Z')
  const times = new Set<string>()
  for (const id of ids(await sessionTree(store, session_id))) for (const event of await store.read(id)) times.add(event.created_at)
  assert.is(times.size, 1, 'one created_at for every event')
  // Just before the root's last event, every sub-agent had finished: all six are forked, whole.
  const original = await store.read(session_id)
  const forked = await sessionTree(store, await forkTree(store, session_id, original.length - 1, () => leadOptions(recordingClock().clock)))
  const originals = new Set(ids(await sessionTree(store, session_id)))
  assert.is(ids(forked).filter((id) => !originals.has(id)).length, 7, 'the root and its six sub-agents forked')
  await hub.close()
})

test("a sub-agent parked while its parent's reply ran another call: the fork closes the parent's cut reply and interrupts the parked sub-agent with it", async () => {
  const store = memoryStore()
  const research = agentTool({
    name: 'research', description: 'Researches', concurrencySafe: true,
    agent: { name: 'Researcher', tools: [askingTool(probe())], model: scriptedModel([[...callTool('d1', 'delete_file', { path: '/a' })], [...say('Deleted.')]]) },
  })
  const slow = defineTool({ name: 'slow', description: 'Waits', input: z.object({}), concurrencySafe: true, execute: (_input, { signal }) => sleep(60_000, signal).then(() => 'slow done') })
  const agent = () => ({ name: 'Lead', tools: [research, slow], model: scriptedModel([[...callTool('c1', 'research', { task: 'go' }), ...callTool('c2', 'slow', {})], [...say('Done.')]]) })
  const hub = createHub({ store, agent, sweepMs: false })
  try {
    const { session_id } = await hub.create()
    const stream = hub.session(session_id).replyStream('go')[Symbol.asyncIterator]()
    let child: string | undefined
    while (!child || (await store.info(child)).status !== 'paused') {
      const { value } = await stream.next()
      if (value?.type === 'TOOL_RESULT_START' && typeof value.metadata.child_session_id === 'string') child = value.metadata.child_session_id
      if (child) await new Promise((resolve) => setTimeout(resolve, 5))
    }
    const original = await store.read(session_id)
    assert.is(replay(original).status, 'running', 'the lead still runs its slow call')
    const forkedRoot = await forkTree(store, session_id, original.length, agent)
    const forked = await sessionTree(store, forkedRoot)
    assert.is(forked.children.length, 1)
    const forkedChild = await store.read(forked.children[0].session_id)
    const childEnd = forkedChild.at(-1)!
    assert.is(childEnd.type === 'REPLY_END' && childEnd.finished_reason, 'interrupted', "the parked sub-agent's fork is closed")
    assert.ok(forkedChild.some((e) => e.type === 'USER_INTERRUPT'), 'by an interrupt of its paused reply')
    const rootEnd = (await store.read(forkedRoot)).at(-1)!
    assert.is(rootEnd.type === 'REPLY_END' && rootEnd.finished_reason, 'interrupted', "the lead's cut reply is closed")
    for (const id of [forkedRoot, forked.children[0].session_id]) {
      const log = await store.read(id)
      replay(log, undefined, { strict: true })
      assert.equal(checkLog(log).violations, [], `${id} keeps the invariants`)
    }
    assert.is((await store.info(child!)).status, 'paused', 'the original is untouched')
    await stream.return?.()
  } finally {
    await hub.close()
  }
})

test.run()
