// Forking a tree: the root forked at a seq forks its sub-agent sessions as they were at that point
// (each log cut where the parent's had reached, new ids, links rewritten), through forkTree and the
// server's POST /sessions/:id/fork; the fork goes on (a parked one is answered) and the original is untouched.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createHub, createServer, forkTree, memoryStore, replay, sessionTree, type AgentEvent, type SessionStore, type SessionTree } from '../../lib/index.js'
import { directoryStore, listen } from '../../lib/node.js'
import { sessionTreeAgent } from '../helpers/sessionModel.js'
import { tempDir } from '../log/helpers/files.js'
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

test("forked while its sub-agent ran: each sub-agent's log as it was before the root's next event, a cut one closed before its parent", async () => {
  const store = memoryStore()
  const agent = sessionTreeAgent(1)
  const hub = createHub({ store, agent, sweepMs: false })
  const { session_id } = await hub.create()
  await hub.session(session_id).reply('delegate delegate stream 4')
  const events = await store.read(session_id)
  const mid = childOf(events)
  // After the call started, before the sub-agent's first text reached it: the sub-agent was running.
  const seq = seqOf(events, 'TOOL_RESULT_TEXT_DELTA') - 1
  const forked = await forkTree(store, session_id, seq, agent)
  const tree = await sessionTree(store, forked)
  const [forkedMid] = tree.children
  const [forkedLeaf] = forkedMid?.children ?? []
  assert.ok(forkedLeaf, 'the sub-sub-agent is forked too')
  const next = events[seq].created_at
  const leaf = childOf(await store.read(mid))
  const expected: string[] = ['interrupted']
  for (const [original, copy] of [[mid, forkedMid.session_id], [leaf, forkedLeaf.session_id]]) {
    const events = await store.read(original)
    const kept = events.filter((e) => e.created_at < next)
    const forkedEvents = (await store.read(copy)).filter((e) => e.type !== 'CUSTOM')
    assert.equal(forkedEvents.slice(0, kept.length).map((e) => e.id), kept.map((e) => e.id), `${copy}: the events of ${original} before the root's next event`)
    const end = kept.find((e) => e.type === 'REPLY_END')
    expected.push(end?.type === 'REPLY_END' ? end.finished_reason : 'interrupted')
  }
  assert.is(expected[1], 'interrupted', 'the sub-agent was running at the cut')
  const ends = new Map<string, AgentEvent>()
  for (const id of ids(tree)) {
    const log = await store.read(id)
    checkStoredLog(log, id)
    ends.set(id, log.filter((e) => e.type !== 'CUSTOM').at(-1)!) // a fork ends with its marker when its reply was over
  }
  const reason = (id: string) => { const e = ends.get(id)!; return e.type === 'REPLY_END' ? e.finished_reason : e.type }
  assert.equal([reason(forked), reason(forkedMid.session_id), reason(forkedLeaf.session_id)], expected, 'the cut replies closed, a finished one as it was')
  assert.ok(ends.get(forkedMid.session_id)!.created_at <= ends.get(forked)!.created_at, 'the sub-agent closed before its parent')
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
