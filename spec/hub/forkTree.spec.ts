// forkTree on a store (memory): a tree of sessions forked at every seq of its root, each sub-agent
// session as it was then (exactly the events it had created before the root's event seq + 1, also
// when the whole tree ran within one millisecond), new sessions linked to each other, cut replies
// closed deepest first, the original sessions untouched.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createHub, forkTree, memoryStore, sessionTree, type AgentEvent, type SessionTree } from '../../lib/index.js'
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

test.run()
