// Security on the real server: with a token every route needs the bearer (any case of "Bearer";
// a wrong one never appears in the answer), CORS headers only for listed origins, listen() refuses
// a public host without a token, and the constant-time comparison is a plain equality. Without a
// token only loopback Host names (or listed `hosts`) are served (DNS rebinding); a request from a
// page on a foreign Origin, or a body that is not application/json, is refused before it runs.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { AgentError, createServer, createHub, memoryStore, say, scriptedModel } from '../../lib/index.js'
import { listen } from '../../lib/node.js'
import { safeEqual } from '../../lib/server/guard.js'
import { httpRequest, post, startServer } from './helpers.js'

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
    assert.throws(() => createServer({ hub, limits: { eventStreams: 0 } }), (e: unknown) => e instanceof AgentError && e.code === 'INVALID_OPTION')
    assert.throws(() => createServer({ hub, hosts: 'agents.internal' as unknown as string[] }), (e: unknown) => e instanceof AgentError && e.code === 'INVALID_OPTION')
    assert.throws(() => createServer({ hub, log: 'stderr' as unknown as () => void }), (e: unknown) => e instanceof AgentError && e.code === 'INVALID_OPTION')
  } finally {
    await hub.close()
  }
})

const sessionCount = async (url: string) => ((await (await fetch(`${url}/sessions`)).json()) as { items: unknown[] }).items.length

test('without a token, a Host that is not loopback is refused 403 (DNS rebinding); listed hosts and a token let others in', async () => {
  const plain = await startServer(agent)
  const listed = await startServer(agent, { hosts: ['agents.internal'] })
  const tokened = await startServer(agent, { token: TOKEN })
  try {
    const port = (url: string) => new URL(url).port
    for (const host of [`attacker.example:${port(plain.url)}`, 'attacker.example', `127.0.0.1.nip.io:${port(plain.url)}`, `agents.internal:${port(plain.url)}`]) {
      for (const path of ['/sessions', '/sessions/x/events']) {
        const refused = await httpRequest(`${plain.url}${path}`, { headers: { host } })
        assert.is(refused.status, 403, `${host} ${path}`)
        assert.is(JSON.parse(refused.text).code, 'FORBIDDEN')
      }
      const create = await httpRequest(`${plain.url}/sessions`, { method: 'POST', headers: { host } })
      assert.is(create.status, 403)
    }
    assert.is(await sessionCount(plain.url), 0, 'nothing was created')
    for (const host of [`localhost:${port(plain.url)}`, `127.0.0.1:${port(plain.url)}`, `[::1]:${port(plain.url)}`, `app.localhost:${port(plain.url)}`, 'LOCALHOST', 'localhost.', '[::ffff:127.0.0.1]', '2130706433'])
      assert.is((await httpRequest(`${plain.url}/sessions`, { headers: { host } })).status, 200, host)
    assert.is((await httpRequest(`${listed.url}/sessions`, { headers: { host: `Agents.Internal:${port(listed.url)}` } })).status, 200, 'a listed host')
    assert.is((await httpRequest(`${listed.url}/sessions`, { headers: { host: 'other.internal' } })).status, 403)
    assert.is((await httpRequest(`${tokened.url}/sessions`, { headers: { host: 'agents.example', authorization: `Bearer ${TOKEN}` } })).status, 200, 'a token guards any host')
  } finally {
    await plain.close()
    await listed.close()
    await tokened.close()
  }
})

test('a request from a page on a foreign origin is refused 403 before it runs, even a "simple" text/plain POST', async () => {
  const server = await startServer(agent, { cors: { origins: ['https://app.example'] } })
  try {
    const session_id = ((await (await post(`${server.url}/sessions`, {})).json()) as { session_id: string }).session_id
    for (const origin of ['https://evil.example', 'null', `http://127.0.0.1:1`, 'http://localhost.evil.example']) {
      const simple = await fetch(`${server.url}/sessions`, { method: 'POST', headers: { origin, 'content-type': 'text/plain' }, body: '{}' })
      assert.is(simple.status, 403, origin)
      assert.is(((await simple.json()) as { code: string }).code, 'FORBIDDEN')
      const reply = await fetch(`${server.url}/sessions/${session_id}/replies`, { method: 'POST', headers: { origin, 'content-type': 'application/json' }, body: JSON.stringify({ input: 'hi' }) })
      assert.is(reply.status, 403)
      assert.is((await fetch(`${server.url}/sessions`, { headers: { origin } })).status, 403, 'reads too')
    }
    assert.is(await sessionCount(server.url), 1, 'nothing was created')
    assert.is(((await (await fetch(`${server.url}/sessions/${session_id}`)).json()) as { seq: number }).seq, 0, 'no reply ran')
    assert.is((await post(`${server.url}/sessions`, {}, { origin: server.url })).status, 201, 'the server\'s own origin (the web page)')
    assert.is((await post(`${server.url}/sessions`, {}, { origin: 'https://app.example' })).status, 201, 'a listed origin')
    assert.is((await post(`${server.url}/sessions`, {})).status, 201, 'no Origin: not a browser page')
    for (const site of ['cross-site', 'same-site']) {
      const embedded = await fetch(`${server.url}/sessions/${session_id}/events`, { headers: { 'sec-fetch-site': site } })
      assert.is(embedded.status, 403, `an <img> or <script> GET from a ${site} page`)
    }
    for (const site of ['same-origin', 'none']) {
      const own = await fetch(`${server.url}/sessions`, { headers: { 'sec-fetch-site': site } })
      assert.is(own.status, 200, site)
    }
  } finally {
    await server.close()
  }
})

test('a body is read only as application/json (or a +json type): others get 415 and change nothing', async () => {
  const server = await startServer(agent)
  try {
    const session_id = ((await (await post(`${server.url}/sessions`, {})).json()) as { session_id: string }).session_id
    const body = JSON.stringify({ input: 'hi' })
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/jsonp', 'text/json']) {
      const refused = await fetch(`${server.url}/sessions/${session_id}/replies`, { method: 'POST', headers: { 'content-type': type }, body })
      assert.is(refused.status, 415, type)
      assert.is(((await refused.json()) as { code: string }).code, 'UNSUPPORTED_MEDIA_TYPE')
    }
    const untyped = await httpRequest(`${server.url}/sessions/${session_id}/replies`, { method: 'POST', body })
    assert.is(untyped.status, 415, 'a body without a content type')
    assert.is(((await (await fetch(`${server.url}/sessions/${session_id}`)).json()) as { seq: number }).seq, 0)
    for (const type of ['application/json; charset=utf-8', 'Application/JSON', 'application/vnd.ag-ui+json']) {
      const run = await fetch(`${server.url}/sessions/${session_id}/replies`, { method: 'POST', headers: { 'content-type': type }, body })
      assert.is(run.status, 200, type)
      await run.text()
    }
  } finally {
    await server.close()
  }
})

test('the Bearer scheme is matched in any case', async () => {
  const server = await startServer(agent, { token: TOKEN })
  try {
    for (const scheme of ['Bearer', 'bearer', 'BEARER', 'beArEr'])
      assert.is((await fetch(`${server.url}/sessions`, { headers: { authorization: `${scheme} ${TOKEN}` } })).status, 200, scheme)
    assert.is((await fetch(`${server.url}/sessions`, { headers: { authorization: `Basic ${TOKEN}` } })).status, 401)
    assert.is((await fetch(`${server.url}/sessions`, { headers: { authorization: TOKEN } })).status, 401)
  } finally {
    await server.close()
  }
})

test.run()
