// The native API on the real server (127.0.0.1, ephemeral port, directory store): sessions, a reply
// streamed as SSE with ids on its durable events, leaving and coming back from the last id,
// interrupt, approval, and the coded refusals, each leaving the log unchanged.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { z } from 'zod'
import { callTool, defineTool, replay, say, scriptedModel, type AgentEvent, type AgentState } from '../../lib/index.js'
import { readSse } from '../../lib/client/sse.js'
import { eventsUpTo, newSession, post, readAll, startServer, type AgentFactory } from './helpers.js'

const test = suite('server/native')

const chatty = (chunkDelayMs = 0): AgentFactory => () => ({
  name: 'Friday', model: scriptedModel([[...say('Hello there, how are you today?', 8)]], { chunkDelayMs, onExhausted: 'repeat-last' }),
})
const state = async (url: string, id: string) => (await (await fetch(`${url}/sessions/${id}`)).json()) as AgentState

test('POST /sessions, GET /sessions (paged), GET /sessions/:id, DELETE /sessions/:id', async () => {
  const server = await startServer(chatty())
  try {
    const created = await post(`${server.url}/sessions`, { session_id: 'alpha' })
    assert.is(created.status, 201)
    assert.is(((await created.json()) as { session_id: string }).session_id, 'alpha')
    await post(`${server.url}/sessions`, { session_id: 'beta' })
    assert.is((await fetch(`${server.url}/sessions`, { method: 'POST' })).status, 201, 'a body is optional')
    const page = (await (await fetch(`${server.url}/sessions?limit=2`)).json()) as { items: { session_id: string }[]; next?: string }
    assert.is(page.items.length, 2)
    const rest = (await (await fetch(`${server.url}/sessions?limit=5&after=${page.next}`)).json()) as { items: { session_id: string }[] }
    const all = [...page.items, ...rest.items].map((s) => s.session_id)
    assert.is(all.length, 3)
    assert.ok(all.includes('alpha') && all.includes('beta'))
    const bad = await fetch(`${server.url}/sessions?after=alpha`)
    assert.is(bad.status, 400, 'an after that is no page\'s next')
    assert.is(((await bad.json()) as { code: string }).code, 'INVALID_INPUT')
    const fresh = await state(server.url, 'alpha')
    assert.is(fresh.seq, 0)
    assert.is(fresh.status, 'idle')
    assert.is((await fetch(`${server.url}/sessions/alpha`, { method: 'DELETE' })).status, 204)
    const gone = await fetch(`${server.url}/sessions/alpha`)
    assert.is(gone.status, 404)
    assert.is(((await gone.json()) as { code: string }).code, 'NOT_FOUND')
    assert.is((await post(`${server.url}/sessions`, { session_id: 'beta' })).status, 409)
  } finally {
    await server.close()
  }
})

test('POST /replies streams the reply\'s events, REPLY_END and pauses with id: <seq>; GET /sessions/:id is the fold of the log', async () => {
  const server = await startServer(chatty())
  try {
    const id = await newSession(server.url)
    const response = await post(`${server.url}/sessions/${id}/replies`, { input: 'hi' })
    assert.is(response.status, 200)
    assert.match(response.headers.get('content-type')!, 'text/event-stream')
    const streamed = await readAll(response)
    assert.is(streamed[0].event.type, 'REPLY_START')
    assert.is(streamed.at(-1)!.event.type, 'REPLY_END')
    const withId = streamed.filter(({ seq }) => !Number.isNaN(seq))
    assert.equal(withId.map(({ event }) => event.type), ['REPLY_END'], 'only a sync point (durable once delivered) names its seq')
    assert.ok(withId.every(({ seq, event }) => event.metadata.seq === seq), 'each id is the event\'s seq')
    assert.ok(streamed.every(({ event }, i) => i === 0 || event.metadata.seq === (streamed[i - 1].event.metadata.seq as number) + 1), 'consecutive seqs')
    const server_state = await state(server.url, id)
    const log = await eventsUpTo(server.url, id, server_state.seq)
    assert.equal(log.map((e) => e.seq), Array.from({ length: server_state.seq }, (_, i) => i + 1))
    assert.equal(replay(log.map((e) => e.event)), server_state)
    assert.is(server_state.context.at(-1)!.content.find((b) => b.type === 'text')?.type === 'text' && (server_state.context.at(-1)!.content[0] as { text: string }).text, 'Hello there, how are you today?')
  } finally {
    await server.close()
  }
})

test('a client that leaves does not stop the reply; it comes back with from_seq or Last-Event-ID, without gaps or duplicates', async () => {
  const server = await startServer(chatty(15))
  try {
    const id = await newSession(server.url)
    const first = await readAll(await post(`${server.url}/sessions/${id}/replies`, { input: 'hi' }))
    const controller = new AbortController()
    const response = await fetch(`${server.url}/sessions/${id}/replies`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ input: 'again' }), signal: controller.signal })
    const seen = await readAll(response, (event) => event.type === 'TEXT_BLOCK_DELTA')
    controller.abort()
    const last = first.at(-1)!.seq
    assert.ok(seen.every(({ seq }) => Number.isNaN(seq)), 'the events of a running reply carry no id yet')
    const resumed = await fetch(`${server.url}/sessions/${id}/events`, { headers: { 'last-event-id': String(last) } })
    const rest = await readAll(resumed, (event) => event.type === 'REPLY_END')
    assert.is(rest[0].seq, last + 1)
    assert.ok(rest.every(({ seq, event }, i) => seq === last + 1 + i && event.metadata.seq === seq))
    const ids = rest.map(({ event }) => event.id)
    const start = ids.indexOf(seen[0].event.id)
    assert.ok(start > 0)
    assert.equal(ids.slice(start, start + seen.length), seen.map(({ event }) => event.id), 'what the client saw comes again in the same order: nothing skipped')
    const end = rest.at(-1)!.event
    assert.is(end.type === 'REPLY_END' && end.finished_reason, 'completed', 'the reply ran to its end')
  } finally {
    await server.close()
  }
})

test('POST /interrupt resolves once REPLY_END(interrupted) is in the log', async () => {
  const server = await startServer(chatty(40))
  try {
    const id = await newSession(server.url)
    const reply = await post(`${server.url}/sessions/${id}/replies`, { input: 'hi' })
    const events: AgentEvent[] = []
    let stopped: Promise<Response> | null = null
    let after: Promise<AgentState> | null = null
    for await (const message of readSse(reply)) {
      events.push(message.data as AgentEvent)
      if (!stopped && events.at(-1)!.type === 'TEXT_BLOCK_DELTA') {
        stopped = post(`${server.url}/sessions/${id}/interrupt`, {})
        after = stopped.then(() => state(server.url, id))
      }
    }
    assert.is((await stopped!).status, 200)
    assert.is((await after!).status, 'idle', 'idle once the interrupt has answered')
    const end = events.at(-1)!
    assert.is(end.type === 'REPLY_END' && end.finished_reason, 'interrupted')
    assert.is((await after!).seq, end.metadata.seq)
  } finally {
    await server.close()
  }
})

test('POST /input approves a paused call (approve / deny shorthands) and the reply resumes', async () => {
  const remove = defineTool({ name: 'remove', description: 'Removes', input: z.object({ path: z.string() }), permission: 'ask', execute: ({ path }) => `removed ${path}` })
  const server = await startServer(() => ({ name: 'Friday', tools: [remove], model: scriptedModel([[...callTool('c-1', 'remove', { path: '/a' })], [...say('Done.')]]) }))
  try {
    const id = await newSession(server.url)
    const first = await readAll(await post(`${server.url}/sessions/${id}/replies`, { input: 'remove /a' }))
    assert.is(first.at(-1)!.event.type, 'REQUIRE_USER_CONFIRM')
    const refused = await post(`${server.url}/sessions/${id}/replies`, { input: 'something else' })
    assert.is(refused.status, 409)
    assert.is(((await refused.json()) as { code: string }).code, 'REPLY_PAUSED')
    const bad = await post(`${server.url}/sessions/${id}/input`, { approve: 'no-such-call' })
    assert.is(bad.status, 400)
    const seqBefore = (await state(server.url, id)).seq
    const approved = await post(`${server.url}/sessions/${id}/input`, { approve: 'c-1' })
    assert.is(approved.status, 200)
    assert.ok(seqBefore === first.at(-1)!.seq, 'the refusals left the log unchanged')
    const rest = await readAll(await fetch(`${server.url}/sessions/${id}/events?from_seq=${seqBefore}`), (e) => e.type === 'REPLY_END')
    const end = rest.at(-1)!.event
    assert.is(end.type === 'REPLY_END' && end.finished_reason, 'completed')
    const done = await state(server.url, id)
    assert.ok(JSON.stringify(done.context.at(-1)!.content).includes('removed /a'))
  } finally {
    await server.close()
  }
})

test('refusals are JSON { code, message } with their status and change nothing', async () => {
  const server = await startServer(chatty(30), { limits: { bodyBytes: 4096, messageBytes: 1024, sseClientsPerSession: 1 } })
  try {
    const id = await newSession(server.url)
    const check = async (response: Response, status: number, code: string) => {
      assert.is(response.status, status, `${code}: status`)
      const body = (await response.json()) as { code: string; message: string }
      assert.is(body.code, code)
      assert.ok(body.message.length > 10)
    }
    await check(await fetch(`${server.url}/sessions/nope/events`), 404, 'NOT_FOUND')
    await check(await fetch(`${server.url}/nowhere`), 404, 'NO_ROUTE')
    await check(await fetch(`${server.url}/sessions/${id}/replies`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{not json' }), 400, 'INVALID_INPUT')
    await check(await post(`${server.url}/sessions/${id}/replies`, { input: 'x'.repeat(5000) }), 413, 'TOO_LARGE')
    await check(await post(`${server.url}/sessions/${id}/replies`, { input: 'x'.repeat(2000) }), 413, 'TOO_LARGE')
    await check(await post(`${server.url}/sessions/${id}/replies`, { input: { type: 'REPLY_END' } }), 400, 'INVALID_INPUT')
    assert.is((await state(server.url, id)).seq, 0, 'nothing was appended')

    const running = await post(`${server.url}/sessions/${id}/replies`, { input: 'hi' })
    await check(await post(`${server.url}/sessions/${id}/replies`, { input: 'again' }), 409, 'REPLY_RUNNING')
    const follower = await fetch(`${server.url}/sessions/${id}/events`)
    await check(await fetch(`${server.url}/sessions/${id}/events`), 429, 'LIMIT_REACHED')
    await follower.body!.cancel()
    await readAll(running)
  } finally {
    await server.close()
  }
})

test('POST /input: deny and submit shorthands, and a plain input event', async () => {
  const remove = defineTool({ name: 'remove', description: 'Removes', input: z.object({ path: z.string() }), permission: 'ask', execute: ({ path }) => `removed ${path}` })
  const browse = defineTool({ name: 'browse', description: 'In the browser', input: z.object({ url: z.string() }), external: true })
  const server = await startServer(() => ({
    name: 'Friday', tools: [remove, browse],
    model: scriptedModel([[...callTool('c-1', 'remove', { path: '/a' })], [...say('Not removed.')], [...callTool('b-1', 'browse', { url: 'u' })], [...say('Seen.')], [...callTool('c-2', 'remove', { path: '/b' })]]),
  }))
  const untilEnd = async (id: string, from: number) => readAll(await fetch(`${server.url}/sessions/${id}/events?from_seq=${from}`), (e) => e.type === 'REPLY_END')
  try {
    const id = await newSession(server.url)
    let seq = (await readAll(await post(`${server.url}/sessions/${id}/replies`, { input: 'remove /a' }))).at(-1)!.seq
    assert.is((await post(`${server.url}/sessions/${id}/input`, { deny: { tool_call_id: 'c-1', reason: 'no' } })).status, 200)
    let rest = await untilEnd(id, seq)
    assert.ok(rest.some(({ event }) => event.type === 'TOOL_RESULT_END' && event.state === 'denied'))
    seq = (await readAll(await post(`${server.url}/sessions/${id}/replies`, { input: 'browse' }))).at(-1)!.seq
    const submitted = await post(`${server.url}/sessions/${id}/input`, { submit: { tool_call_id: 'b-1', result: 'page text' } })
    assert.ok(((await submitted.json()) as { events: { type: string }[] }).events.some((e) => e.type === 'EXTERNAL_EXECUTION_RESULT'))
    rest = await untilEnd(id, seq)
    assert.ok(rest.some(({ event }) => event.type === 'TOOL_RESULT_TEXT_DELTA' && event.delta === 'page text'))
    seq = (await readAll(await post(`${server.url}/sessions/${id}/replies`, { input: 'remove /b' }))).at(-1)!.seq
    const { reply_id } = await state(server.url, id)
    const interrupt = await post(`${server.url}/sessions/${id}/input`, { id: 'ui-1', created_at: new Date().toISOString(), metadata: {}, type: 'USER_INTERRUPT', reply_id })
    assert.is(interrupt.status, 200)
    rest = await untilEnd(id, seq)
    const end = rest.at(-1)!.event
    assert.is(end.type === 'REPLY_END' && end.finished_reason, 'interrupted')
  } finally {
    await server.close()
  }
})

test('a closed store answers 503 with a code', async () => {
  const server = await startServer(chatty())
  try {
    const id = await newSession(server.url)
    await server.hub.close()
    const response = await post(`${server.url}/sessions/${id}/replies`, { input: 'hi' })
    assert.is(response.status, 503)
    assert.ok(['CLOSED', 'LOG_UNAVAILABLE'].includes(((await response.json()) as { code: string }).code))
  } finally {
    await server.close()
  }
})

test('open replies per process are limited (429 LIMIT_REACHED); the slot is free again when the reply ends', async () => {
  const server = await startServer(chatty(40), { limits: { openReplies: 1 } })
  try {
    const one = await newSession(server.url)
    const two = await newSession(server.url)
    const running = await post(`${server.url}/sessions/${one}/replies`, { input: 'hi' })
    const refused = await post(`${server.url}/sessions/${two}/replies`, { input: 'hi' })
    assert.is(refused.status, 429)
    assert.is(((await refused.json()) as { code: string }).code, 'LIMIT_REACHED')
    assert.is((await state(server.url, two)).seq, 0)
    await readAll(running)
    const later = await readAll(await post(`${server.url}/sessions/${two}/replies`, { input: 'hi' }))
    assert.is(later.at(-1)!.event.type, 'REPLY_END')
  } finally {
    await server.close()
  }
})

test('submit without a result is refused INVALID_INPUT and records nothing', async () => {
  const browse = defineTool({ name: 'browse', description: 'In the browser', input: z.object({ url: z.string() }), external: true })
  const server = await startServer(() => ({ name: 'Friday', tools: [browse], model: scriptedModel([[...callTool('b-1', 'browse', { url: 'u' })], [...say('Seen.')]]) }))
  try {
    const id = await newSession(server.url)
    const paused = (await readAll(await post(`${server.url}/sessions/${id}/replies`, { input: 'browse' }))).at(-1)!
    assert.is(paused.event.type, 'REQUIRE_EXTERNAL_EXECUTION')
    for (const submit of [{ tool_call_id: 'b-1' }, { tool_call_id: 'b-1', result: undefined }]) {
      const refused = await post(`${server.url}/sessions/${id}/input`, { submit })
      assert.is(refused.status, 400)
      assert.is(((await refused.json()) as { code: string }).code, 'INVALID_INPUT')
    }
    assert.is((await state(server.url, id)).seq, paused.seq, 'nothing was recorded')
    assert.is((await post(`${server.url}/sessions/${id}/input`, { submit: { tool_call_id: 'b-1', result: '' } })).status, 200, 'an empty result is a result')
  } finally {
    await server.close()
  }
})

test('open event streams are capped per process (429 LIMIT_REACHED over all sessions); a closed one frees its slot', async () => {
  const server = await startServer(chatty(), { limits: { eventStreams: 2 } })
  try {
    const [a, b, c] = [await newSession(server.url), await newSession(server.url), await newSession(server.url)]
    const one = await fetch(`${server.url}/sessions/${a}/events`)
    const two = await fetch(`${server.url}/sessions/${b}/events`)
    const refused = await fetch(`${server.url}/sessions/${c}/events`)
    assert.is(refused.status, 429)
    assert.is(((await refused.json()) as { code: string }).code, 'LIMIT_REACHED')
    await one.body!.cancel()
    for (let tries = 0; ; tries++) {
      if (tries > 1000) assert.unreachable('the closed stream never freed its slot')
      const again = await fetch(`${server.url}/sessions/${c}/events`)
      if (again.status === 200) {
        await again.body!.cancel()
        break
      }
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    await two.body!.cancel()
  } finally {
    await server.close()
  }
})

test.run()
