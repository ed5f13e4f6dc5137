// Forking a tree: the root forked at a seq forks its sub-agent sessions as they were at that point
// (each log cut where the root's had reached: the events created before its next one; new ids,
// links rewritten; spec/hub/forkTree.spec.ts forks a deeper tree at every seq), through forkTree and the
// server's POST /sessions/:id/fork; the fork goes on (a parked one is answered) and the original is untouched.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createHub, createServer, forkTree, memoryStore, replay, sessionTree, type AgentEvent, type SessionStore, type SessionTree } from '../../lib/index.js'
import { directoryStore, listen } from '../../lib/node.js'
import { sessionTreeAgent } from '../helpers/sessionModel.js'
import { tempDir } from '../log/helpers/files.js'
import { recordingClock } from '../timeTravel/helpers/forkedTree.js'
import { checkStoredLog, childOf, eventually } from './helpers/hubTree.js'

const test = suite('subagents/fork')
const ids = (t: SessionTree): string[] => [t.session_id, ...t.children.flatMap(ids)]

test('a parked tree forked at its last event: new sessions linked to each other, the fork answerable, the original untouched', async () => {
  const store = memoryStore()
  const agent = sessionTreeAgent(1)
  const hub = createHub({ store, agent, sweepMs: false })
  const { session_id } = await hub.create()
  await hub.session(session_id).reply('delegate ask /a')
  const before = (await store.info(session_id)).last_seq
  const child = childOf(await store.read(session_id))
  const forked = await forkTree(store, session_id, before, agent)
  const tree = await sessionTree(store, forked)
  assert.is(tree.children.length, 1)
  const [copy] = tree.children
  assert.not.ok([session_id, child].includes(copy.session_id), 'new session ids')
  assert.equal(copy.parent?.session_id, forked)
  assert.is(childOf(await store.read(forked)), copy.session_id, "the fork's call names the forked sub-agent")
  const start = (await store.read(copy.session_id)).find((e) => e.type === 'REPLY_START')!
  assert.is((start.metadata.parent as { session_id: string }).session_id, forked, "the forked sub-agent's REPLY_START names the fork")
  const [call] = replay(await store.read(copy.session_id)).waiting_for
  await hub.session(forked).approve(call.id)
  await eventually('the fork is idle', async () => (await store.info(forked)).status === 'idle')
  for (const id of ids(tree)) checkStoredLog(await store.read(id), id)
  assert.is((await store.info(session_id)).status, 'paused', 'the original still waits')
  assert.is((await store.info(session_id)).last_seq, before)
  await hub.close()
})

/** The position of the first event of `type` in the root's log (seq). */
const seqOf = (events: AgentEvent[], type: string) => events.findIndex((e) => e.type === type) + 1

test("forked while its sub-agent ran: the sub-agent's log as it was before the root's next event, its cut reply closed before its parent's", async () => {
  const store = memoryStore()
  const { clock, rank } = recordingClock()
  const agent = sessionTreeAgent(1, clock)
  const hub = createHub({ store, agent, sweepMs: false })
  const { session_id } = await hub.create()
  await hub.session(session_id).reply('delegate stream 40')
  const events = await store.read(session_id)
  const sub = childOf(events)
  // After the sub-agent's first text reached the call (the next comes at most 16 ms later): it was still streaming.
  const seq = seqOf(events, 'TOOL_RESULT_TEXT_DELTA')
  const forked = await forkTree(store, session_id, seq, agent)
  const [forkedSub] = (await sessionTree(store, forked)).children
  // The order the tree's events were created in (the clock's), not their times (many share a millisecond).
  const kept = (await store.read(sub)).filter((e) => rank.get(e.id)! < rank.get(events[seq].id)!)
  assert.ok(kept.some((e) => e.type === 'TEXT_BLOCK_DELTA') && !kept.some((e) => e.type === 'REPLY_END'), 'the sub-agent had streamed, not ended')
  const forkedEvents = await store.read(forkedSub.session_id)
  assert.equal(forkedEvents.slice(0, kept.length).map((e) => e.id), kept.map((e) => e.id), "the sub-agent's events before the root's next event")
  const ends: AgentEvent[] = []
  for (const id of [forkedSub.session_id, forked]) {
    const log = await store.read(id)
    checkStoredLog(log, id)
    const end = log.at(-1)!
    assert.ok(end.type === 'REPLY_END' && end.finished_reason === 'interrupted', `${id}: the cut reply closed as interrupted`)
    ends.push(end)
  }
  assert.ok(rank.get(ends[0].id)! < rank.get(ends[1].id)!, 'the sub-agent closed before its parent')
  await hub.close()
})

test('POST /sessions/:id/fork forks the sub-agent sessions; GET /sessions/:id/children lists them', async () => {
  const dir = tempDir()
  const store: SessionStore = directoryStore(dir)
  const agent = sessionTreeAgent(1)
  const hub = createHub({ store, agent, sweepMs: false })
  const server = await listen(createServer({ hub, page: { store, agent } }), { port: 0 })
  try {
    const { session_id } = await hub.create()
    await hub.session(session_id).reply('delegate ask /a')
    const response = await fetch(`${server.url}/sessions/${session_id}/fork`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ seq: (await store.info(session_id)).last_seq }) })
    assert.is(response.status, 201)
    const { session_id: forked } = (await response.json()) as { session_id: string }
    const { items } = (await (await fetch(`${server.url}/sessions/${forked}/children`)).json()) as { items: SessionTree[] }
    assert.is(items.length, 1)
    assert.is(items[0].parent?.session_id, forked)
    assert.is(items[0].status, 'paused')
    assert.is.not(items[0].session_id, childOf(await store.read(session_id)))
  } finally {
    await server.close()
    await hub.close()
  }
})

test.run()
