// The HTTP surface under random requests: listen(createServer(...)) over a real hub is sent random
// methods, paths (malformed %-escapes, unknown routes, odd queries), headers (Host, Origin,
// Content-Type, Authorization, Last-Event-ID, Sec-Fetch-Site) and bodies (valid and broken JSON,
// deep nesting, wrong types, huge strings). Properties: the process never sees an uncaught error,
// nothing is answered 5xx (all of it is bad input or fine), and a refused request (4xx or a closed
// connection) changes no session (the same sessions, each with the same last seq).
import fc from 'fast-check'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createHub, createServer, memoryStore, say, scriptedModel, type Hub } from '../../lib/index.js'
import { listen, type Listening } from '../../lib/node.js'
import { watchCrashes } from '../helpers/hardening.js'
import { httpRequest } from '../server/helpers.js'
import { params } from './helpers/config.js'
import { count, printStats } from './helpers/stats.js'

const test = suite('properties/httpSurface')
const TOKEN = 'surface-token-1234'
const BODY_BYTES = 32 << 10

interface Server { hub: Hub; listening: Listening; port: string; token?: string }

const start = async (token?: string): Promise<Server> => {
  const hub = createHub({ store: memoryStore(), agent: () => ({ name: 'Friday', model: scriptedModel([[...say('Fine.', 2)]], { onExhausted: 'repeat-last' }) }) })
  const listening = await listen(createServer({ hub, ...(token ? { token } : {}), cors: { origins: ['https://app.example'] }, limits: { bodyBytes: BODY_BYTES, keepAliveMs: 60_000 } }), { port: 0 })
  await hub.create({ session_id: 'alpha' })
  await hub.session('alpha').reply('hello')
  await hub.create({ session_id: 'beta' })
  return { hub, listening, port: new URL(listening.url).port, ...(token ? { token } : {}) }
}

/** Every session with its last seq, once no reply is running (a reply an accepted request started has ended). */
const snapshot = async (hub: Hub): Promise<string> => {
  for (let tries = 0; ; tries++) {
    const { items } = await hub.list({ limit: 1000 })
    if (!items.some((s) => s.status === 'running') || tries > 2000) return items.map((s) => `${s.session_id}:${s.last_seq}:${s.status}`).sort().join(' ')
    await new Promise((resolve) => setTimeout(resolve, 2))
  }
}

const nested = (depth: number, leaf = '1') => `${'['.repeat(depth)}${leaf}${']'.repeat(depth)}`

const session = fc.constantFrom('alpha', 'beta', 'gamma', '%E0%A4%A', '..', '%2F', 'a%00b', 'x'.repeat(300))
const path = fc.oneof(
  fc.tuple(session, fc.constantFrom('', '/events', '/replies', '/input', '/interrupt', '/ag-ui', '/tools', '/fork', '/nope')).map(([id, tail]) => `/sessions/${id}${tail}`),
  fc.constantFrom('/sessions', '/ag-ui', '/', '/%', '/%ZZ', '/sessions?limit=0', '/sessions?limit=abc', '/sessions?after=%FF', '//sessions', '/sessions/'),
  fc.tuple(session, fc.oneof(fc.nat({ max: 40 }).map(String), fc.constantFrom('-1', 'x', '1e3', '99999999999999999999'))).map(([id, from]) => `/sessions/${id}/events?from_seq=${from}`),
  fc.array(fc.stringMatching(/^[A-Za-z0-9%._~!$&'()*+,;=:@-]{0,12}$/), { maxLength: 4 }).map((parts) => `/${parts.join('/')}`),
)
const method = fc.oneof({ arbitrary: fc.constantFrom('GET', 'POST', 'POST', 'POST', 'DELETE', 'PUT', 'OPTIONS', 'HEAD', 'TRACE'), weight: 9 }, { arbitrary: fc.stringMatching(/^[A-Z]{1,8}$/), weight: 1 })
/** Absent half of the time. */
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined, freq: 2 })
const headers = fc.record({
  host: maybe(fc.oneof({ arbitrary: fc.constantFrom('localhost', '127.0.0.1', '[::1]', 'LocalHost'), weight: 3 }, fc.constantFrom('attacker.example', 'a b', '[::1', 'localhost:1', 'xn--bcher-kva.example'))),
  origin: maybe(fc.oneof({ arbitrary: fc.constantFrom('same', 'https://app.example'), weight: 3 }, fc.constantFrom('https://evil.example', 'null', 'http://localhost', 'garbage'))),
  'content-type': fc.option(fc.constantFrom('application/json', 'application/json; charset=utf-8', 'application/vnd.ag-ui+json', 'text/plain', 'multipart/form-data', ';;;'), { nil: undefined, freq: 5 }),
  authorization: fc.option(fc.oneof({ arbitrary: fc.constantFrom('Bearer token', 'bearer token'), weight: 3 }, fc.constantFrom('token', 'Bearer nope', 'Basic x', 'Bearer')), { nil: undefined, freq: 4 }),
  'last-event-id': maybe(fc.oneof(fc.nat({ max: 50 }).map(String), fc.constantFrom('-1', 'abc', ''))),
  'sec-fetch-site': fc.option(fc.constantFrom('same-origin', 'none', 'cross-site', 'same-site'), { nil: undefined, freq: 4 }),
}).map((h) => Object.fromEntries(Object.entries(h).filter(([, v]) => v !== undefined)) as Record<string, string>)

/** The headers as sent to `server`: a host without a port gets the server's, "same" is its origin, "token" its token. */
const materialize = (given: Record<string, string>, { port, token }: Server): Record<string, string> => {
  const out = { ...given }
  if (out.host !== undefined && !out.host.includes(':') && !out.host.includes(' ')) out.host = `${out.host}:${port}`
  if (out.host === '[::1]') out.host = `[::1]:${port}`
  if (out.origin === 'same') out.origin = `http://127.0.0.1:${port}`
  if (out.authorization !== undefined) out.authorization = out.authorization.replace('token', token ?? 'none')
  return out
}
const userContent = fc.oneof(fc.string({ maxLength: 20 }), fc.integer(), fc.constant(null), fc.object({ maxDepth: 2 }), fc.constant([{ type: 'text', text: 'hi' }]))
const body = fc.oneof(
  fc.constant(undefined),
  fc.constant('{"input":"hi"}'),
  fc.constantFrom('{}', '{"input":"hi"}', '{"input":"hi"}', '{"input":"hi"}', '{"input":{"role":"user","content":"hi"}}', '{"approve":"c-1"}', '{"submit":{"tool_call_id":"c-1"}}', '{"seq":1}', '{"session_id":"delta"}', '{"metadata":{"a":1}}'),
  fc.record({ threadId: fc.constantFrom('alpha', 'beta', 'thread-x'), runId: fc.constant('r'), messages: fc.array(fc.record({ id: fc.string({ minLength: 1, maxLength: 4 }), role: fc.constantFrom('user', 'tool', 'assistant'), content: userContent }), { maxLength: 2 }) }).map((v) => JSON.stringify(v)),
  fc.json({ maxDepth: 3 }),
  fc.anything({ maxDepth: 2 }).map((v) => JSON.stringify(v) ?? 'undefined'),
  fc.tuple(fc.constantFrom('{"input":"hi"}', '[1,2,3]', '{"a":{"b":'), fc.nat()).map(([text, n]) => text.slice(0, n % text.length)),
  fc.integer({ min: 150, max: 100_000 }).map((depth) => nested(depth)),
  fc.integer({ min: 150, max: 20_000 }).map((depth) => `{"input":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`),
  fc.integer({ min: 1, max: 3 * BODY_BYTES }).map((n) => JSON.stringify({ input: 'x'.repeat(n) })),
  fc.constant('\u0000\u0001\uFFFF'),
)

/** Requests a client of the API would send (most are served), so refusals are checked against a log that moves. */
const plausible = fc.oneof(
  fc.constant({ verb: 'GET', target: '/sessions', text: undefined }),
  fc.constantFrom('alpha', 'beta').map((id) => ({ verb: 'GET', target: `/sessions/${id}`, text: undefined })),
  fc.tuple(fc.constantFrom('alpha', 'beta'), fc.nat({ max: 12 })).map(([id, from]) => ({ verb: 'GET', target: `/sessions/${id}/events?from_seq=${from}`, text: undefined })),
  fc.option(fc.stringMatching(/^[a-z]{1,6}$/), { nil: undefined }).map((id) => ({ verb: 'POST', target: '/sessions', text: JSON.stringify(id ? { session_id: id } : {}) })),
  fc.tuple(fc.constantFrom('alpha', 'beta'), fc.string({ maxLength: 30 })).map(([id, input]) => ({ verb: 'POST', target: `/sessions/${id}/replies`, text: JSON.stringify({ input }) })),
  fc.constantFrom('alpha', 'beta').map((id) => ({ verb: 'POST', target: `/sessions/${id}/interrupt`, text: undefined })),
  fc.tuple(fc.constantFrom('alpha', 'beta', 'thread'), fc.string({ minLength: 1, maxLength: 6 }), userContent).map(([threadId, mid, content]) =>
    ({ verb: 'POST', target: '/ag-ui', text: JSON.stringify({ threadId, runId: 'r', messages: [{ id: mid, role: 'user', content }] }) })),
  fc.stringMatching(/^[a-z]{1,6}$/).map((id) => ({ verb: 'DELETE', target: `/sessions/${id}`, text: undefined })),
)
const request = fc.oneof(
  plausible.map((r) => ({ ...r, given: { 'content-type': 'application/json', authorization: 'Bearer token' } as Record<string, string> })),
  { arbitrary: fc.record({ verb: method, target: path, given: headers, text: body }), weight: 2 },
)

test('random requests: no crash, nothing 5xx, a refused request changes no session', async () => {
  const plain = await start()
  const guarded = await start(TOKEN)
  const watch = watchCrashes()
  try {
    await fc.assert(
      fc.asyncProperty(fc.boolean(), request, async (useToken, { verb, target, given: described, text }) => {
        const current = useToken ? guarded : plain
        const given = materialize(described, current)
        const before = await snapshot(current.hub)
        const sent = verb === 'GET' || verb === 'HEAD' ? undefined : text
        const answer = await httpRequest(`${current.listening.url}${target}`, { method: verb, headers: given, ...(sent !== undefined ? { body: sent } : {}), stopAfterHeaders: true })
          .catch(() => ({ status: 0, text: '' }))
        count(`status ${answer.status === 0 ? 'closed' : answer.status}`)
        assert.equal(watch.crashes, [], 'no uncaught error or unhandled rejection')
        assert.ok(answer.status < 500, `${verb} ${target} ${JSON.stringify(given)} answered ${answer.status}: ${answer.text.slice(0, 200)}`)
        if (answer.status === 0 || answer.status >= 400) assert.is(await snapshot(current.hub), before, `${verb} ${target} was refused (${answer.status}) but changed a session`)
        else await snapshot(current.hub)
      }),
      params(200, 'random requests'),
    )
    printStats('httpSurface: answers by status')
    assert.equal(await watch.stop(), [])
    assert.is((await fetch(`${plain.listening.url}/sessions`)).status, 200, 'the server still answers')
  } finally {
    await watch.stop()
    for (const server of [plain, guarded]) {
      await server.listening.close()
      await server.hub.close()
    }
  }
})

test.run()
