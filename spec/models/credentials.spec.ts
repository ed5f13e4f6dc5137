// Issue 9, items 15 and 16 (and the Anthropic half of 4): credentials stay where they belong. A
// baseURL with user:password@ is refused when the model is made; a redirect to another origin is
// refused (the other server receives nothing: no key, no conversation), a same-origin 307 is
// followed; an API key or bearer token a provider echoes in its error body is redacted, in the
// ModelError and in the REPLY_END the log records. Anthropic's decoder never passes an empty id.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { AgentError, createAgent, ModelError, UserMsg } from '../../lib/index.js'
import type { ChatModel } from '../../lib/models/model.js'
import { anthropicDecoder, anthropicModel } from '../../lib/models/anthropic.js'
import { openAIChatModel } from '../../lib/models/openai.js'
import { simpleRequest } from './helpers/msgs.js'
import { startServer, type TestServer } from './helpers/server.js'
import { anBlockStart, collect, oaChunk, oaStream } from './helpers/wire.js'

const test = suite<{ a: TestServer; b: TestServer }>('models/credentials')

test.before(async (context) => {
  context.a = await startServer()
  context.b = await startServer()
})
test.after(async ({ a, b }) => {
  await a.close()
  await b.close()
})
test.before.each(({ a, b }) => {
  a.reset()
  b.reset()
})

const KEY = 'sk-ant-api03-SECRETSECRETSECRET'
const run = (model: ChatModel) => collect(model.stream(simpleRequest(), { signal: new AbortController().signal }))
const OK = { steps: [oaStream([oaChunk({ content: 'Hello' }), oaChunk({}, 'stop')])] }

for (const [factory, make] of [
  ['openAIChatModel', (baseURL: string) => openAIChatModel({ model: 'm', apiKey: 'k', baseURL })],
  ['anthropicModel', (baseURL: string) => anthropicModel({ model: 'm', apiKey: 'k', baseURL, maxTokens: 10 })],
] as const) {
  test(`${factory} refuses a baseURL carrying user:password@, without echoing the password`, () => {
    assert.throws(() => make('https://me:hunter2secret@api.example.com/v1'), (error: AgentError) =>
      error.code === 'INVALID_OPTION' && /must not carry credentials/.test(error.message) && !error.message.includes('hunter2secret'))
    assert.throws(() => make('not a url'), (error: AgentError) => error.code === 'INVALID_OPTION')
  })
}

test('a redirect to another origin is refused: the other server receives nothing', async ({ a, b }) => {
  a.reply({ status: 307, headers: { location: `${b.url}/v1/messages` } })
  const { error } = await run(anthropicModel({ model: 'm', apiKey: KEY, baseURL: a.url, maxTokens: 10, maxRetries: 0 }))
  assert.instance(error, ModelError)
  assert.is(error.type, 'invalid_request')
  assert.match(error.message, /redirected the request .* to another origin/)
  assert.is(b.requests.length, 0, 'neither the key nor the conversation reached the other origin')
  assert.is(a.requests.length, 1, 'and it was not retried')
})

test('a 302 to another origin is refused too (fetch would have resent the key without the body)', async ({ a, b }) => {
  a.reply({ status: 302, headers: { location: `${b.url}/elsewhere` } })
  const { error } = await run(openAIChatModel({ model: 'm', apiKey: 'sk-test', baseURL: a.url, maxRetries: 0 }))
  assert.is(error?.type, 'invalid_request')
  assert.is(b.requests.length, 0)
})

test('a same-origin 307 is followed with its body', async ({ a }) => {
  a.reply({ status: 307, headers: { location: '/moved/chat/completions' } }, OK)
  const { chunks, error } = await run(openAIChatModel({ model: 'm', apiKey: 'sk-test', baseURL: a.url, maxRetries: 0 }))
  assert.is(error, undefined)
  assert.equal(chunks, [{ type: 'text', delta: 'Hello' }])
  assert.is(a.requests[1].url, '/moved/chat/completions')
  assert.is(a.requests[1].body.model, 'm', 'the body went along to the same origin')
})

test('a key and a bearer token echoed in an error body are redacted, in the error and in the log', async ({ a }) => {
  const body = { error: { message: `invalid x-api-key ${KEY}; header was Bearer abcdefghijklmnop1234; see https://u:p4ssw0rd@example.com`, type: 'authentication_error' } }
  a.reply({ status: 401, headers: { 'content-type': 'application/json' }, steps: [JSON.stringify(body)] })
  const agent = createAgent({ name: 'A', model: anthropicModel({ model: 'm', apiKey: KEY, baseURL: a.url, maxTokens: 10, maxRetries: 0 }) })
  const error = await agent.reply(UserMsg({ content: 'hi' })).catch((e: unknown) => e)
  assert.instance(error, ModelError)
  const recorded = JSON.stringify(agent.log)
  for (const secret of [KEY, 'abcdefghijklmnop1234', 'p4ssw0rd']) {
    assert.not.ok((error as Error).message.includes(secret), `the error does not carry ${secret}`)
    assert.not.ok(recorded.includes(secret), `the log does not carry ${secret}`)
  }
  assert.match((error as Error).message, /invalid x-api-key \*\*\*/)
})

test('the Anthropic decoder gives a tool_use block with an empty id a generated one', () => {
  const decoder = anthropicDecoder()
  const [chunk] = decoder.event({ event: 'content_block_start', data: anBlockStart(0, { type: 'tool_use', id: '', name: 'f', input: {} }).split('data: ')[1].trim(), id: undefined })
  assert.is(chunk.type, 'tool_call')
  assert.ok(chunk.type === 'tool_call' && chunk.id.length > 0)
})

test.run()
