// Bad input at POST /a2a gets the JSON-RPC / A2A error that names it and changes nothing: the
// version header (none or 0.3: -32009, as the SDK's server), malformed JSON, requests without a
// method, unknown methods, bad params, unknown tasks, refused part kinds, oversized bodies; the
// token (the card stays public and declares the bearer scheme); and a property spec of random requests.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import fc from 'fast-check'
import { say, scriptedModel } from '../../../lib/index.js'
import { startServer, type AgentFactory } from '../helpers.js'
import { rpc, sdkClient, taskJson, text, type Json } from './helpers.js'

const test = suite('server/a2a/errors')

const chatty: AgentFactory = () => ({ name: 'Friday', model: scriptedModel([[...say('Hi.')]], { onExhausted: 'repeat-last' }) })
const send = (parts: unknown, extra: Json = {}) => ({ jsonrpc: '2.0', id: 7, method: 'SendMessage', params: { message: { messageId: 'm', role: 'ROLE_USER', parts, ...extra } } })
const sessions = async (url: string) => ((await (await fetch(`${url}/sessions`)).json()) as { items: unknown[] }).items.length

test('each malformed request gets its code, with the request id when there is one, and creates nothing', async () => {
  const server = await startServer(chatty, { a2a: true, limits: { bodyBytes: 4096 } })
  try {
    const url = server.url
    const cases: [unknown, number, RegExp?][] = [
      ['{"jsonrpc": "2.0", "id": 1, "method": ', -32700],
      [[], -32600],
      [{ jsonrpc: '2.0', id: 1 }, -32600, /method/],
      [{ jsonrpc: '1.0', id: 1, method: 'GetTask' }, -32600],
      [{ jsonrpc: '2.0', id: 1, method: 'tasks/get', params: {} }, -32601, /SendMessage/],
      [{ jsonrpc: '2.0', id: 1, method: 'GetTask', params: [] }, -32602],
      [{ jsonrpc: '2.0', id: 1, method: 'GetTask', params: {} }, -32602, /"id"/],
      [{ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'no-such-task' } }, -32001],
      [{ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'nosession:r1' } }, -32001],
      [{ jsonrpc: '2.0', id: 1, method: 'CancelTask', params: { id: '../x:r' } }, -32001],
      [{ jsonrpc: '2.0', id: 1, method: 'SubscribeToTask', params: { id: 'nosession:r1' } }, -32001],
      [{ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: {} }, -32602, /message/],
      [send([{ url: 'https://example.com/a.png', mediaType: 'image/png' }]), -32602, /url part/],
      [send([{ raw: 'AAAA', mediaType: 'application/pdf' }]), -32602, /file part/],
      [send([{ foo: 1 }]), -32602, /unknown/],
      [send([]), -32602, /parts/],
      [send([{ text: 'hi' }], { role: 'ROLE_AGENT' }), -32602, /ROLE_USER/],
      [send([{ text: 'hi' }], { contextId: '../../etc' }), -32602, /contextId/],
      [send([{ text: 'hi' }], { taskId: 'nosession:r1' }), -32001],
      [send([{ data: { kind: 'agentlog.answer', tool_call_id: 'x', decision: 'approve' } }]), -32602, /taskId/],
      [{ jsonrpc: '2.0', id: 1, method: 'CreateTaskPushNotificationConfig', params: {} }, -32003],
      [{ jsonrpc: '2.0', id: 1, method: 'ListTasks', params: { pageSize: -1 } }, -32602],
      [{ jsonrpc: '2.0', id: 1, method: 'ListTasks', params: { status: 'DONE' } }, -32602],
    ]
    for (const [body, code, message] of cases) {
      const { status, body: answer } = await rpc(url, body)
      assert.is(status, 200, JSON.stringify(body))
      assert.is(answer.jsonrpc, '2.0')
      assert.is(answer.error?.code, code, `${JSON.stringify(body)} → ${JSON.stringify(answer)}`)
      if (message) assert.match(answer.error.message, message)
      if (typeof body === 'object' && body !== null && 'id' in body) assert.is(answer.id, 1 === (body as Json).id ? 1 : (body as Json).id)
    }
    const big = await rpc(url, send([{ text: 'x'.repeat(5000) }]))
    assert.is(big.status, 413)
    assert.is(big.body.error.code, -32600)
    assert.is(await sessions(url), 0, 'nothing was created')
  } finally {
    await server.close()
  }
})

test('a request without A2A-Version: 1.0 (none means 0.3) gets the version error, as the SDK\'s server answers', async () => {
  const server = await startServer(chatty, { a2a: true })
  try {
    for (const headers of [{}, { 'a2a-version': '0.3' }, { 'a2a-version': '2.0' }] as Record<string, string>[]) {
      const { body } = await rpc(server.url, { jsonrpc: '2.0', id: 3, method: 'GetTask', params: { id: 'a:b' } }, headers)
      assert.is(body.error.code, -32009, JSON.stringify(headers))
      assert.is(body.id, 3)
      assert.is(body.error.data[0].reason, 'VERSION_NOT_SUPPORTED')
    }
  } finally {
    await server.close()
  }
})

test('with a token: the card is public and declares the bearer scheme; calls need the token; the SDK client with it works', async () => {
  const token = 'secret-token-123'
  const server = await startServer(chatty, { a2a: true, token })
  try {
    const card = (await (await fetch(`${server.url}/.well-known/agent-card.json`)).json()) as Json
    assert.equal(card.securitySchemes, { bearer: { httpAuthSecurityScheme: { scheme: 'bearer', description: card.securitySchemes.bearer.httpAuthSecurityScheme.description } } })
    assert.equal(card.securityRequirements, [{ schemes: { bearer: { list: [] } } }])
    const refused = await rpc(server.url, send([{ text: 'hi' }]))
    assert.is(refused.status, 401)
    assert.is((await fetch(`${server.url}/sessions`)).status, 401)
    const client = await sdkClient(server.url, { authorization: `Bearer ${token}` })
    assert.is(taskJson(await client.sendMessage(text('hi'))).status.state, 'TASK_STATE_COMPLETED')
  } finally {
    await server.close()
  }
})

const methods = ['SendMessage', 'SendStreamingMessage', 'GetTask', 'ListTasks', 'CancelTask', 'SubscribeToTask', 'nope', '']
const part = fc.oneof(fc.record({ text: fc.string() }), fc.record({ data: fc.jsonValue() }), fc.record({ url: fc.string() }), fc.record({ raw: fc.string(), mediaType: fc.string() }), fc.dictionary(fc.string(), fc.jsonValue()))
const params = fc.oneof(
  fc.jsonValue(),
  fc.record({ id: fc.oneof(fc.string(), fc.constant('s1:r1'), fc.jsonValue()) }, { requiredKeys: [] }),
  fc.record({ message: fc.oneof(fc.jsonValue(), fc.record({ messageId: fc.string(), role: fc.constantFrom('ROLE_USER', 'ROLE_AGENT', 'user'), parts: fc.array(part, { maxLength: 3 }), contextId: fc.oneof(fc.string(), fc.constant('s1')), taskId: fc.oneof(fc.string(), fc.constant('s1:r1')) }, { requiredKeys: [] })) }, { requiredKeys: [] }),
)
const body = fc.oneof(
  fc.record({ jsonrpc: fc.constantFrom('2.0', '1.0'), id: fc.oneof(fc.integer(), fc.string(), fc.constant(null), fc.double()), method: fc.constantFrom(...methods), params }, { requiredKeys: [] }),
  fc.jsonValue(),
)

test('property: random requests always get a JSON-RPC answer (a result or a coded error, never an internal one) and change nothing they should not', async () => {
  const server = await startServer(chatty, { a2a: true })
  try {
    await fc.assert(fc.asyncProperty(body, async (b) => {
      const { status, body: answer } = await rpc(server.url, b)
      assert.ok([200, 413, 415].includes(status), `status ${status}`)
      assert.is(answer.jsonrpc, '2.0')
      if (answer.error) {
        assert.ok(Number.isInteger(answer.error.code) && answer.error.code !== -32603, JSON.stringify({ b, answer }))
        assert.type(answer.error.message, 'string')
      } else assert.ok('result' in answer)
      const sent = typeof b === 'object' && b !== null && ['SendMessage', 'SendStreamingMessage'].includes((b as Json).method)
      if (!sent) assert.is(await sessions(server.url), 0)
    }), { numRuns: 150 })
  } finally {
    await server.close()
  }
})

test.run()
