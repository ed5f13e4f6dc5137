// The tree on a hub's streams and the server's API: `follow({ descendants: true })` interleaves the
// sub-agents' events, each tagged with its session; the server's /events and reply streams do the
// same with `?descendants=1` (tagged events carry no SSE id), `GET /sessions/:id/children` lists the
// sub-agent sessions, nested, and `sessionTree` reads the tree from a store.
import { firstValueFrom, filter, toArray, takeWhile } from 'rxjs'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createHub, memoryStore, sessionTree, type AgentEvent, type SessionTree } from '../../lib/index.js'
import { readSse } from '../../lib/client/sse.js'
import { sessionTreeAgent } from '../helpers/sessionModel.js'
import { post, startServer } from '../server/helpers.js'
import { childOf } from './helpers/hubTree.js'

const test = suite('subagents/hub streams')
const TASK = 'delegate delegate stream 3'

const tagOf = (e: AgentEvent) => e.metadata.session_id as string | undefined

test("follow({ descendants: true }) on a hub session interleaves every sub-agent's events, tagged with its session, each sub-agent's end before its parent's", async () => {
  const store = memoryStore()
  const hub = createHub({ store, agent: sessionTreeAgent(1), sweepMs: false })
  const { session_id } = await hub.create()
  const rootEnded = (e: AgentEvent) => !(e.type === 'REPLY_END' && tagOf(e) === undefined)
  const all = firstValueFrom(hub.session(session_id).follow({ descendants: true }).pipe(takeWhile(rootEnded, true), toArray()))
  const plain = firstValueFrom(hub.session(session_id).follow().pipe(takeWhile(rootEnded, true), toArray()))
  await hub.session(session_id).reply(TASK)
  const events = await all
  const mid = childOf(await store.read(session_id))
  const leaf = childOf(await store.read(mid))
  assert.equal([...new Set(events.map(tagOf))], [undefined, mid, leaf], 'the root untagged, then the sub-agent, then its own')
  for (const id of [mid, leaf]) {
    const own = events.filter((e) => tagOf(e) === id).map(({ metadata: { session_id: _, ...metadata }, ...e }) => ({ ...e, metadata }))
    assert.equal(own, await store.read(id), `every event of ${id}, in its order`)
  }
  const endAt = (id: string | undefined) => events.findIndex((e) => e.type === 'REPLY_END' && tagOf(e) === id)
  assert.ok(endAt(leaf) < endAt(mid) && endAt(mid) < endAt(undefined), 'deepest end first')
  assert.equal((await plain).map(tagOf).filter(Boolean), [], 'without descendants only the session itself')
  await hub.close()
})

test('sessionTree (and handle.tree()) reads the tree from the store: ids, parents, status', async () => {
  const store = memoryStore()
  const hub = createHub({ store, agent: sessionTreeAgent(1), sweepMs: false })
  const { session_id } = await hub.create()
  await hub.session(session_id).reply(TASK)
  const tree = await sessionTree(store, session_id)
  const mid = childOf(await store.read(session_id))
  const leaf = childOf(await store.read(mid))
  const shape = (t: SessionTree): unknown => ({ id: t.session_id, status: t.status, parent: t.parent?.session_id ?? null, children: t.children.map(shape) })
  assert.equal(shape(tree), { id: session_id, status: 'idle', parent: null, children: [{ id: mid, status: 'idle', parent: session_id, children: [{ id: leaf, status: 'idle', parent: mid, children: [] }] }] })
  assert.equal(await hub.session(session_id).tree(), tree)
  await hub.close()
})

test('the server: GET /sessions/:id/children, /events?descendants=1 and a reply stream with descendants (tagged events carry no SSE id)', async () => {
  const server = await startServer(sessionTreeAgent(1))
  try {
    const { session_id } = (await (await post(`${server.url}/sessions`, {})).json()) as { session_id: string }
    const replied: { id?: string; event: AgentEvent }[] = []
    for await (const m of readSse(await post(`${server.url}/sessions/${session_id}/replies?descendants=1`, { input: TASK }))) replied.push({ id: m.id, event: m.data as AgentEvent })
    const children = (await (await fetch(`${server.url}/sessions/${session_id}/children`)).json()) as { items: SessionTree[] }
    assert.is(children.items.length, 1)
    const [mid] = children.items
    assert.is(mid.parent?.session_id, session_id)
    assert.is(mid.children.length, 1)
    const leaf = mid.children[0].session_id
    assert.ok(replied.some((r) => tagOf(r.event) === leaf && r.event.type === 'TEXT_BLOCK_DELTA'), "the reply stream carries the leaf's text")
    for (const r of replied) if (tagOf(r.event)) assert.ok(!r.id, 'a tagged event has no SSE id')
    const followed: AgentEvent[] = []
    const ids: (string | undefined)[] = []
    for await (const m of readSse(await fetch(`${server.url}/sessions/${session_id}/events?from_seq=0&descendants=1`))) {
      const event = m.data as AgentEvent
      followed.push(event)
      if (!tagOf(event)) ids.push(m.id)
      if (event.type === 'REPLY_END' && !tagOf(event)) break
    }
    assert.equal(new Set(followed.map(tagOf)), new Set([undefined, mid.session_id, leaf]))
    assert.equal(ids, followed.filter((e) => !tagOf(e)).map((e) => String(e.metadata.seq)), "the session's own events keep their seq as id")
    assert.is((await fetch(`${server.url}/sessions/nope/children`)).status, 404)
  } finally {
    await server.close()
  }
})

test.run()
