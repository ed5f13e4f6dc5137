// Issue 30, point 6: the same steer, queue, unqueue and gentle Stop through the hub's session handle,
// the server (POST /sessions/:id/input with { steer } | { queue } | { unqueue }, the Stop route with
// { when: 'step' }) over real HTTP, and remoteAgent, which resolves as a local agent does.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { callTool, checkLog, remoteAgent, replay, say, scriptedModel, textOf, type AgentEvent, type Msg } from '../../lib/index.js'
import { probe, slowTool } from '../helpers/fixtures.js'
import { eventsUpTo, newSession, post, startServer, type AgentFactory } from '../server/helpers.js'

const storedEvents = async (url: string, id: string, seq: number) => (await eventsUpTo(url, id, seq)).map((e) => e.event)

const test = suite('talk/surfaces')
const tick = (ms = 10) => new Promise((resolve) => setTimeout(resolve, ms))
const userTexts = (messages: Msg[]) => messages.filter((m) => m.role === 'user').map(textOf)
const clean = (events: AgentEvent[]) => {
  assert.equal(checkLog(events).violations, [])
  replay(events, undefined, { strict: true })
}

/** Every session: a slow tool call, then an answer that says how many user messages it saw. */
const agents = (): AgentFactory => () => {
  const p = probe()
  const count = () => [{ type: 'text' as const, delta: 'ok' }]
  return {
    name: 'a', tools: [slowTool(p, { ms: 250 })],
    model: scriptedModel([[...callTool('c-1', 'slow', { x: 'a' })], count, count, count, count], { onExhausted: 'repeat-last' }),
  }
}

test('the hub handle steers, queues, unqueues and stops gently; results match a local agent', async () => {
  const server = await startServer(agents())
  try {
    const session = server.hub.session(await newSession(server.url))
    const run = session.reply('go')
    while ((await session.state()).status !== 'running') await tick(5)
    const steered = await session.steer('steer me')
    const state = await session.state()
    assert.is(steered.reply_id, state.reply_id)
    const kept = await session.queue('kept')
    const dropped = await session.queue('dropped')
    assert.equal([kept.position, dropped.position], [0, 1])
    await session.unqueue(dropped.id)
    assert.equal((await session.state()).queue.map((e) => e.id), [kept.id])
    await run
    while ((await session.state()).status !== 'idle' || (await session.state()).queue.length) await tick()
    const final = await session.state()
    assert.equal(userTexts(final.context), ['go', 'steer me', 'kept'])
    clean(await storedEvents(server.url, session.session_id, final.seq))
  } finally {
    await server.close()
  }
})

test('HTTP: { steer }, { queue }, { unqueue } on /input and { when: "step" } on the Stop route; the Stop answers with what it handed back', async () => {
  const server = await startServer(agents())
  try {
    const id = await newSession(server.url)
    const base = `${server.url}/sessions/${id}`
    void post(`${base}/replies`, { input: 'go' }).then((r) => r.text())
    while ((await server.hub.session(id).state()).status !== 'running') await tick(5)
    const steer = await (await post(`${base}/input`, { steer: 'steer me' })).json() as { id: string; reply_id: string; seq: number }
    assert.type(steer.id, 'string')
    assert.type(steer.reply_id, 'string')
    assert.type(steer.seq, 'number')
    const queued = await (await post(`${base}/input`, { queue: 'later' })).json() as { id: string; position: number }
    assert.is(queued.position, 0)
    const bad = await post(`${base}/input`, { unqueue: 'nope' })
    assert.is(bad.status >= 400 && bad.status < 500, true)
    assert.is((await bad.json() as { code: string }).code, 'UNKNOWN_QUEUED')
    const stop = await (await post(`${base}/interrupt`, { when: 'step' })).json() as { status: string; queue: { id: string }[] }
    assert.is(stop.status, 'idle')
    assert.equal(stop.queue.map((e) => e.id).sort(), [steer.id, queued.id].sort(), 'the gentle stop handed back the steer that never joined and the queue')
    const events = await storedEvents(server.url, id, (await server.hub.session(id).state()).seq)
    const results = events.filter((e) => e.type === 'TOOL_RESULT_END').map((e) => e.type === 'TOOL_RESULT_END' && e.state)
    assert.equal(results, ['success'], 'the running tool finished with its real result')
    clean(events)
    const refused = await post(`${base}/interrupt`, { when: 'later' })
    assert.is((await refused.json() as { code: string }).code, 'INVALID_OPTION')
  } finally {
    await server.close()
  }
})

test('remoteAgent: steer, queue, unqueue and interrupt({ when, keepQueue }) resolve as a local agent and state shows them', async () => {
  const server = await startServer(agents())
  try {
    const agent = remoteAgent({ url: server.url, session: await newSession(server.url) })
    const run = agent.reply('go')
    while ((await agent.sync()).status !== 'running') await tick(5)
    const steered = await agent.steer('steer me')
    assert.is(agent.state.steers.map((e) => e.id).includes(steered.id) || agent.state.context.some((m) => m.id === steered.id), true)
    const queued = await agent.queue('kept')
    assert.equal(agent.state.queue.map((e) => e.id), [queued.id])
    const other = await agent.queue('other')
    await agent.unqueue(other.id)
    assert.equal(agent.state.queue.map((e) => e.id), [queued.id])
    const stopped = await agent.interrupt({ keepQueue: true })
    assert.equal(stopped.queue, [])
    assert.is((await run).finished_reason, 'interrupted')
    while (agent.state.status !== 'idle' || agent.state.queue.length || !agent.state.context.some((m) => m.id === queued.id)) await agent.sync().then(() => tick())
    assert.ok(agent.state.context.some((m) => m.id === queued.id), 'the kept message started')
    agent.close()
  } finally {
    await server.close()
  }
})

test.run()
