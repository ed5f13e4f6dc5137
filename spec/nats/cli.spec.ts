// The agentlog command on a NATS store: `sessions`, `replay` and `inspect` read it like the other
// stores (--schema names the store); two `agentlog serve --store nats://…` processes share its
// sessions: a follower on B sees every event of a reply running on A, and Stop posted to B
// interrupts the reply streaming from A.
import { fileURLToPath } from 'node:url'
import { isDeepStrictEqual } from 'node:util'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { main } from '../../lib/cli/main.js'
import { createHub, type AgentEvent, type AgentState } from '../../lib/index.js'
import { readSse } from '../../lib/client/sse.js'
import { sessionAgent } from '../helpers/sessionModel.js'
import { serveProcess, type ServeProcess } from '../helpers/serveProcess.js'
import { dropNames, freshStore, NATS_URL, natsAvailable, newName } from './helpers/server.js'

const test = suite('nats/cli')
const name = newName()
const servers: ServeProcess[] = []

const run = async (...argv: string[]) => {
  const out: string[] = []
  const err: string[] = []
  const code = await main(argv, { out: (t) => out.push(t), err: (t) => err.push(t) })
  return { code, out: out.join('\n'), err: err.join('\n') }
}
const post = (url: string, body: unknown) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })

test.before(async () => {
  const hub = createHub({ store: freshStore({}, name), agent: sessionAgent(1) })
  await hub.create({ session_id: 'chat-1' })
  await hub.session('chat-1').reply('hello')
  await hub.session('chat-1').reply('ask /tmp/a')
  await hub.create({ session_id: 'chat-2' })
  await hub.session('chat-2').reply('hi')
  await hub.close()
})
test.after(async () => {
  for (const server of servers) assert.is(await server.stop(), 0)
  await dropNames()
})

test('sessions, replay and inspect read a NATS store named with --schema', async () => {
  const listed = await run('sessions', NATS_URL, '--schema', name)
  assert.is(listed.code, 0, listed.err)
  assert.match(listed.out, /2 sessions/)
  assert.match(listed.out, /chat-1\s+paused/)
  assert.match(listed.out, /chat-2\s+idle/)
  const store = freshStore({}, name)
  try {
    const replayed = await run('replay', NATS_URL, '--session', 'chat-1', '--schema', name, '--json')
    assert.is(replayed.code, 0, replayed.err)
    assert.ok(isDeepStrictEqual(JSON.parse(replayed.out).state, await store.state!('chat-1')), 'replay --json state equals the store state')
  } finally {
    await store.close()
  }
  const inspected = await run('inspect', NATS_URL, '--session', 'chat-1', '--schema', name)
  assert.is(inspected.code, 0, inspected.err)
  assert.match(inspected.out, /2 replies/)
  const missing = await run('replay', NATS_URL, '--session', 'nope', '--schema', name)
  assert.is.not(missing.code, 0)
  assert.match(missing.err, /NOT_FOUND|no session nope/)
})

test('two serve processes on one NATS store: a follower on B sees A\'s reply, and Stop posted to B interrupts it', async () => {
  const agent = fileURLToPath(new URL('../postgres/helpers/servedAgent.ts', import.meta.url))
  servers.push(serveProcess(['--agent', agent, '--store', NATS_URL, '--schema', name]), serveProcess(['--agent', agent, '--store', NATS_URL, '--schema', name]))
  const [A, B] = await Promise.all(servers.map((s) => s.url))
  const { session_id: id } = (await (await post(`${A}/sessions`, {})).json()) as { session_id: string }
  const followed: AgentEvent[] = []
  const following = (async () => {
    for await (const m of readSse(await fetch(`${B}/sessions/${id}/events?from_seq=0`))) {
      followed.push(m.data as AgentEvent)
      if (followed.at(-1)!.type === 'REPLY_END') break
    }
  })()
  const events: AgentEvent[] = []
  let stopped: Promise<Response> | null = null
  for await (const m of readSse(await post(`${A}/sessions/${id}/replies`, { input: 'slow please' }))) {
    const event = m.data as AgentEvent
    events.push(event)
    if (event.type === 'TEXT_BLOCK_DELTA' && !stopped) stopped = post(`${B}/sessions/${id}/interrupt`, {})
  }
  assert.is((await stopped!).status, 200)
  const end = events.at(-1)!
  assert.is(end.type === 'REPLY_END' && end.finished_reason, 'interrupted')
  assert.ok(events.filter((e) => e.type === 'TEXT_BLOCK_DELTA').length < 200, 'it stopped before the end of the text')
  await following
  assert.equal(followed.map((e) => e.metadata.seq), Array.from({ length: followed.length }, (_, i) => i + 1), 'B saw every event once, in order')
  const ids = new Set(followed.map((e) => e.id))
  assert.ok(events.every((e) => ids.has(e.id)), 'B saw every event A streamed')
  const state = (await (await fetch(`${B}/sessions/${id}`)).json()) as AgentState
  assert.is(state.status, 'idle')
})

if (natsAvailable('spec/nats/cli.spec.ts')) test.run()
