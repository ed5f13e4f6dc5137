// Security on the real server: with a token every route needs the bearer (and a wrong one never
// appears in the answer), CORS headers only for listed origins, listen() refuses a public host
// without a token, and the constant-time comparison is a plain equality.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { AgentError, createServer, createHub, memoryStore, say, scriptedModel } from '../../lib/index.js'
import { listen } from '../../lib/node.js'
import { safeEqual } from '../../lib/server/guard.js'
import { post, startServer } from './helpers.js'

const test = suite('server/guard')
const agent = () => ({ name: 'Friday', model: scriptedModel([[...say('Hi.')]], { onExhausted: 'repeat-last' }) })
const TOKEN = 'correct-horse-battery'

test('safeEqual is equality, whatever the lengths', () => {
  assert.ok(safeEqual('abc', 'abc'))
  assert.not.ok(safeEqual('abc', 'abd'))
  assert.not.ok(safeEqual('abc', 'abcd'))
  assert.not.ok(safeEqual('', 'a'))
  assert.ok(safeEqual('', ''))
})

test('with a token, every route needs Authorization: Bearer; the token never appears in an answer', async () => {
  const server = await startServer(agent, { token: TOKEN })
  try {
    for (const [method, path] of [['GET', '/sessions'], ['POST', '/sessions'], ['GET', '/sessions/x'], ['POST', '/ag-ui'], ['GET', '/sessions/x/events']]) {
      const none = await fetch(`${server.url}${path}`, { method })
      assert.is(none.status, 401, `${method} ${path}`)
      const wrong = await fetch(`${server.url}${path}`, { method, headers: { authorization: `Bearer ${TOKEN}x` } })
      assert.is(wrong.status, 401)
      const text = await wrong.text()
      assert.is(JSON.parse(text).code, 'UNAUTHORIZED')
      assert.not.ok(text.includes(TOKEN), 'the token is not echoed')
    }
    const ok = await post(`${server.url}/sessions`, {}, { authorization: `Bearer ${TOKEN}` })
    assert.is(ok.status, 201)
    const { session_id } = (await ok.json()) as { session_id: string }
    const state = await (await fetch(`${server.url}/sessions/${session_id}`, { headers: { authorization: `Bearer ${TOKEN}` } })).text()
    assert.not.ok(state.includes(TOKEN))
  } finally {
    await server.close()
  }
})

test('CORS is off unless origins are listed; a listed origin gets its headers and its preflight', async () => {
  const closed = await startServer(agent)
  const open = await startServer(agent, { cors: { origins: ['https://app.example'] } })
  try {
    const plain = await fetch(`${closed.url}/sessions`, { headers: { origin: 'https://app.example' } })
    assert.is(plain.headers.get('access-control-allow-origin'), null)
    assert.is((await fetch(`${closed.url}/sessions`, { method: 'OPTIONS', headers: { origin: 'https://app.example' } })).status, 403)
    const allowed = await fetch(`${open.url}/sessions`, { headers: { origin: 'https://app.example' } })
    assert.is(allowed.headers.get('access-control-allow-origin'), 'https://app.example')
    const other = await fetch(`${open.url}/sessions`, { headers: { origin: 'https://evil.example' } })
    assert.is(other.headers.get('access-control-allow-origin'), null)
    const preflight = await fetch(`${open.url}/sessions`, { method: 'OPTIONS', headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' } })
    assert.is(preflight.status, 204)
    assert.match(preflight.headers.get('access-control-allow-headers')!, 'authorization')
    const refused = await fetch(`${open.url}/sessions/none`, { headers: { origin: 'https://app.example' } })
    assert.is(refused.status, 404)
    assert.is(refused.headers.get('access-control-allow-origin'), 'https://app.example', 'errors carry the CORS headers too')
  } finally {
    await closed.close()
    await open.close()
  }
})

test('listen() refuses a non-loopback host for a server without a token; createServer refuses bad options', async () => {
  const hub = createHub({ store: memoryStore(), agent })
  try {
    await listen(createServer({ hub }), { host: '0.0.0.0', port: 0 }).then(() => assert.unreachable('refused'), (error: unknown) => {
      assert.instance(error, AgentError)
      assert.is((error as AgentError).code, 'INVALID_OPTION')
    })
    const listening = await listen(createServer({ hub, token: TOKEN }), { host: '0.0.0.0', port: 0 })
    await listening.close()
    assert.throws(() => createServer({ hub, token: 'short' }), (e: unknown) => e instanceof AgentError && e.code === 'INVALID_OPTION')
    assert.throws(() => createServer({ hub, limits: { bodyBytes: -1 } }), (e: unknown) => e instanceof AgentError && e.code === 'INVALID_OPTION')
  } finally {
    await hub.close()
  }
})

test.run()
