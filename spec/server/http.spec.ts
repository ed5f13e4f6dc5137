// Bad input at the HTTP edge is a 4xx with a code, never a 500: a malformed %-escape in the path,
// JSON nested 100,000 deep. Error answers say what went wrong without the server's internals
// (absolute file paths, database addresses, also from a real unreachable PostgreSQL); the server's
// own log hears them in full.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { AgentError, createHub, createServer, memoryStore, say, scriptedModel, type SessionStore } from '../../lib/index.js'
import { listen } from '../../lib/node.js'
import { postgresStore } from '../../lib/postgres.js'
import { publicMessage } from '../../lib/server/http.js'
import { newSession, post, startServer } from './helpers.js'

const test = suite('server/http')
const agent = () => ({ name: 'Friday', model: scriptedModel([[...say('Hi.')]], { onExhausted: 'repeat-last' }) })
const codeOf = async (response: Response) => ((await response.json()) as { code: string }).code

test('a malformed %-escape in the path is 400 INVALID_INPUT', async () => {
  const server = await startServer(agent)
  try {
    for (const path of ['/sessions/%E0%A4%A', '/sessions/%ZZ/events', '/sessions/a%/replies', '/%C0%80'])
      for (const method of ['GET', 'POST']) {
        const response = await fetch(`${server.url}${path}`, { method, headers: { 'content-type': 'application/json' }, body: method === 'POST' ? '{"input":"hi"}' : undefined })
        assert.is(response.status, 400, `${method} ${path}`)
        assert.is(await codeOf(response), 'INVALID_INPUT')
      }
  } finally {
    await server.close()
  }
})

test('JSON nested 100,000 deep is 400 INVALID_INPUT on every route that reads a body; nothing is logged', async () => {
  const server = await startServer(agent, { limits: { bodyBytes: 4 << 20 } })
  try {
    const id = await newSession(server.url)
    const deep = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`
    const deepObject = (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`
    const bodies = [deep(100_000), `{"input":${deepObject(100_000)}}`, `{"input":{"role":"user","content":${deep(100_000)}}}`]
    for (const path of [`/sessions/${id}/replies`, `/sessions/${id}/input`, '/sessions', '/ag-ui', `/sessions/${id}/ag-ui`])
      for (const body of bodies) {
        const response = await fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
        assert.is(response.status, 400, `${path} ${body.slice(0, 12)}`)
        assert.is(await codeOf(response), 'INVALID_INPUT')
      }
    assert.is(((await (await fetch(`${server.url}/sessions/${id}`)).json()) as { seq: number }).seq, 0)
    assert.is(((await (await fetch(`${server.url}/sessions`)).json()) as { items: unknown[] }).items.length, 1, 'no session was created')
    const fine = await post(`${server.url}/sessions/${id}/replies`, { input: { role: 'user', content: 'a message' } })
    assert.is(fine.status, 200, 'a normal body passes')
    await fine.text()
  } finally {
    await server.close()
  }
})

test('an error answer carries no absolute file path; the server log hears it in full', async () => {
  const heard: string[] = []
  const server = await startServer(agent, { log: (error) => heard.push((error as Error).message) })
  try {
    const id = await newSession(server.url)
    writeFileSync(join(server.dir, `${id}.jsonl`), 'not a log at all\n')
    const response = await fetch(`${server.url}/sessions/${id}`)
    assert.ok(response.status >= 400)
    const text = await response.text()
    assert.not.ok(text.includes(server.dir), text)
    assert.match(JSON.parse(text).code, /^[A-Z_]+$/)
    assert.ok(heard.some((m) => m.includes(server.dir)), 'the server log keeps the path')
  } finally {
    await server.close()
  }
})

test('a store failure naming the database host and port is answered without them', async () => {
  const inner = memoryStore()
  const failing: SessionStore = {
    ...inner,
    list: async () => {
      throw new AgentError('LOG_UNAVAILABLE', 'The session store cannot be reached: connect ECONNREFUSED 10.0.3.7:5432 (postgres://app:secret@db.internal:5432/agents).')
    },
  }
  const heard: unknown[] = []
  const hub = createHub({ store: failing, agent })
  const listening = await listen(createServer({ hub, log: (error) => heard.push(error) }), { port: 0 })
  try {
    const response = await fetch(`${listening.url}/sessions`)
    assert.is(response.status, 503)
    const body = (await response.json()) as { code: string; message: string }
    assert.is(body.code, 'LOG_UNAVAILABLE')
    for (const secret of ['10.0.3.7', '5432', 'db.internal', 'secret', 'postgres://']) assert.not.ok(body.message.includes(secret), `${secret} in ${body.message}`)
    assert.match(body.message, /cannot be reached/)
    assert.is(heard.length, 1)
  } finally {
    await listening.close()
    await hub.close()
  }
})

test('a PostgreSQL store that cannot be reached is answered 503 without its address', async () => {
  const heard: string[] = []
  const hub = createHub({ store: postgresStore({ connectionString: 'postgres://app:pw@127.0.0.1:1/agents', schema: 'unreachable' }), agent })
  const listening = await listen(createServer({ hub, log: (error) => heard.push((error as Error).message) }), { port: 0 })
  try {
    for (const path of ['/sessions', '/sessions/x', '/sessions/x/events']) {
      const response = await fetch(`${listening.url}${path}`)
      assert.is(response.status, 503, path)
      const text = await response.text()
      assert.is(JSON.parse(text).code, 'LOG_UNAVAILABLE')
      assert.not.ok(/127\.0\.0\.1|:1\b|pw@/.test(text), text)
    }
    assert.ok(heard.length === 3 && heard.every((m) => m.includes('127.0.0.1:1')), 'the server log has the address')
  } finally {
    await listening.close()
    await hub.close().catch(() => {})
  }
})

test('publicMessage takes out paths, addresses and URLs, and keeps the API\'s own routes', () => {
  const cases: [string, string][] = [
    ['/var/lib/agentlog/s1.jsonl:3: line 3 is not JSON.', '<path> line 3 is not JSON.'],
    ['C:\\data\\agentlog\\s1.jsonl is locked', '<path> is locked'],
    ['connect ECONNREFUSED 127.0.0.1:5432', 'connect ECONNREFUSED'],
    ['getaddrinfo ENOTFOUND db.internal', 'getaddrinfo ENOTFOUND'],
    ['at [::1]:5432 and db.internal:6543', 'at <address> and <address>'],
    ['POST /sessions/:id/replies needs { "input": ... }', 'POST /sessions/:id/replies needs { "input": ... }'],
    ['No route for GET /ag-ui/x; see /sessions', 'No route for GET /ag-ui/x; see /sessions'],
    ['send application/json; received "text/plain"', 'send application/json; received "text/plain"'],
  ]
  for (const [given, expected] of cases) assert.is(publicMessage(given).message, expected, given)
  assert.is(publicMessage('nothing to hide').scrubbed, false)
})

test.run()
