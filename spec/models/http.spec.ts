import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { ModelError } from '../../lib/core/errors.js'
import type { ChatModel } from '../../lib/models/model.js'
import { anthropicModel } from '../../lib/models/anthropic.js'
import { backoffMs, bodyMessage, serverDelayMs } from '../../lib/models/http.js'
import { openAIChatModel } from '../../lib/models/openai.js'
import { simpleRequest } from './helpers/msgs.js'
import { startServer, type TestServer } from './helpers/server.js'
import { collect, oaChunk, oaStream, within } from './helpers/wire.js'

const test = suite<{ server: TestServer }>('models/http')

test.before(async (context) => {
  context.server = await startServer()
})
test.after(async ({ server }) => server.close())
test.before.each(({ server }) => server.reset())

const openai = (server: TestServer, extra: Partial<Parameters<typeof openAIChatModel>[0]> = {}) =>
  openAIChatModel({ model: 'gpt-4o-mini', apiKey: 'sk-test', baseURL: server.url, ...extra })
const run = (model: ChatModel, signal = new AbortController().signal) => collect(model.stream(simpleRequest(), { signal }))
const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  ({ status, headers: { 'content-type': 'application/json', ...headers }, steps: [JSON.stringify(body)] })
const oaError = (message: string, type = 'server_error') => ({ error: { message, type, param: null, code: null } })
const OK = { steps: [oaStream([oaChunk({ content: 'Hello' }), oaChunk({}, 'stop')])] }
const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

test('a 429 with Retry-After: 0 is retried and the stream then succeeds', async ({ server }) => {
  server.reply(json(429, oaError('Rate limit reached', 'requests'), { 'retry-after': '0' }), OK)
  const { chunks, error } = await run(openai(server))
  assert.is(error, undefined)
  assert.equal(chunks, [{ type: 'text', delta: 'Hello' }])
  assert.is(server.requests.length, 2)
})

test('retry-after-ms is honoured', async ({ server }) => {
  server.reply(json(429, oaError('slow down'), { 'retry-after-ms': '150' }), OK)
  await run(openai(server))
  const [first, second] = server.requests
  assert.ok(second.at - first.at >= 140, `retried after ${second.at - first.at} ms`)
})

test('three 503s with maxRetries 2 end in an upstream ModelError after 3 attempts', async ({ server }) => {
  const overloaded = json(503, oaError('The engine is currently overloaded'), { 'retry-after': '0' })
  server.reply(overloaded, overloaded, overloaded, OK)
  const { chunks, error } = await run(openai(server, { maxRetries: 2 }))
  assert.equal(chunks, [])
  assert.instance(error, ModelError)
  assert.is(error.type, 'upstream')
  assert.is(error.status, 503)
  assert.match(error.message, 'The engine is currently overloaded')
  assert.is(server.requests.length, 3)
})

test('Anthropic 529 overloaded_error is upstream and retried', async ({ server }) => {
  const overloaded = json(529, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }, { 'retry-after': '0' })
  server.reply(overloaded, overloaded)
  const model = anthropicModel({ model: 'claude-sonnet-4-5', apiKey: 'k', baseURL: server.url, maxTokens: 64, maxRetries: 1 })
  const { error } = await run(model)
  assert.is(error?.type, 'upstream')
  assert.is(error.status, 529)
  assert.match(error.message, 'Overloaded')
  assert.is(server.requests.length, 2)
})

test('401 is an authentication error with the provider message (the echoed key redacted), and is not retried', async ({ server }) => {
  server.reply(json(401, oaError('Incorrect API key provided: sk-test.', 'invalid_request_error')))
  const { error } = await run(openai(server))
  assert.instance(error, ModelError)
  assert.is(error.type, 'authentication')
  assert.match(error.message, 'Incorrect API key provided: ***.')
  assert.not.match(error.message, 'sk-test')
  assert.is(server.requests.length, 1)
})

test('403 is permission; 400, 404 and 422 are invalid_request; none is retried', async ({ server }) => {
  for (const [status, type] of [[403, 'permission'], [400, 'invalid_request'], [404, 'invalid_request'], [422, 'invalid_request']] as const) {
    server.reset()
    server.reply(json(status, { error: 'model "llama9" not found' }))
    const { error } = await run(openai(server))
    assert.is(error?.type, type, String(status))
    assert.match(error.message, 'model "llama9" not found')
    assert.is(server.requests.length, 1)
  }
})

test('a malformed stream is an upstream error and is not retried', async ({ server }) => {
  server.reply({ steps: ['data: {"id":"chatcmpl-1","choices":[{"delta":{"content":"Hi"}\n\n'] })
  const { error } = await run(openai(server))
  assert.is(error?.type, 'upstream')
  assert.match(error.message, 'malformed stream')
  assert.is(server.requests.length, 1)
  server.reply({ headers: { 'content-type': 'text/html' }, steps: ['<html><body>Bad gateway page</body></html>'] })
  const html = await run(openai(server))
  assert.is(html.error?.type, 'upstream')
})

test('a connection dropped before the first chunk is retried after the default backoff', async ({ server }) => {
  server.reply({ steps: [{ destroy: true }] }, OK)
  const { chunks, error } = await run(openai(server, { maxRetries: 1 }))
  assert.is(error, undefined)
  assert.equal(chunks, [{ type: 'text', delta: 'Hello' }])
  const gap = server.requests[1].at - server.requests[0].at
  assert.ok(gap >= 370 && gap < 1000, `retried after ${gap} ms`)
})

test('a connection dropped after a chunk was delivered is a connection error without retry', async ({ server }) => {
  server.reply({ steps: [`data: ${oaChunk({ content: 'Hel' })}\n\n`, { wait: 20 }, { destroy: true }] }, OK)
  const { chunks, error } = await run(openai(server))
  assert.equal(chunks, [{ type: 'text', delta: 'Hel' }])
  assert.is(error?.type, 'connection')
  assert.is(server.requests.length, 1)
})

test('a refused connection is a connection error', async () => {
  const closed = await startServer()
  await closed.close()
  const { error } = await run(openAIChatModel({ model: 'm', baseURL: closed.url, maxRetries: 0 }))
  assert.instance(error, ModelError)
  assert.is(error.type, 'connection')
})

test('timeoutMs ends a silent request with a connection error that says it timed out', async ({ server }) => {
  server.reply({ hang: true })
  const started = performance.now()
  const { error } = await within(run(openai(server, { timeoutMs: 100, maxRetries: 0 })), 1000, 'the timed-out stream')
  assert.is(error?.type, 'connection')
  assert.match(error.message, 'timed out')
  assert.ok(performance.now() - started < 400)
  await within(server.requests[0].closed, 100, 'server close')
})

test('abort() while the server streams slowly closes the connection within 50 ms and ends with an AbortError', async ({ server }) => {
  const slow = Array.from({ length: 20 }, (_, i) => [`data: ${oaChunk({ content: `w${i} ` })}\n\n`, { wait: 40 }]).flat()
  server.reply({ steps: slow, hang: true })
  const controller = new AbortController()
  const iterator = openai(server).stream(simpleRequest(), { signal: controller.signal })[Symbol.asyncIterator]()
  assert.equal((await iterator.next()).value, { type: 'text', delta: 'w0 ' })
  assert.equal((await iterator.next()).value, { type: 'text', delta: 'w1 ' })
  const pending = iterator.next() // waiting on the body read
  await tick(10)
  const abortedAt = performance.now()
  controller.abort()
  const error = await within(pending.then(() => undefined, (e) => e), 500, 'the pending next()')
  const endedAt = performance.now()
  assert.is(error?.name, 'AbortError')
  assert.not.instance(error, ModelError)
  assert.ok(endedAt - abortedAt < 50, `ended ${endedAt - abortedAt} ms after abort`)
  const closedAt = await within(server.requests[0].closed, 200, 'server close')
  assert.ok(closedAt - abortedAt < 50, `server saw the close ${closedAt - abortedAt} ms after abort`)
  assert.is((await within(iterator.next(), 500, 'next() after the error')).done, true)
})

test('abort() between two chunks (consumer busy) closes the connection at once', async ({ server }) => {
  server.reply({ steps: [`data: ${oaChunk({ content: 'a' })}\n\n`], hang: true })
  const controller = new AbortController()
  const iterator = openai(server).stream(simpleRequest(), { signal: controller.signal })[Symbol.asyncIterator]()
  await iterator.next()
  const abortedAt = performance.now()
  controller.abort()
  const closedAt = await within(server.requests[0].closed, 200, 'server close')
  assert.ok(closedAt - abortedAt < 50, `server saw the close ${closedAt - abortedAt} ms after abort`)
  const error = await within(iterator.next().then(() => undefined, (e) => e), 500, 'next() after abort')
  assert.is(error?.name, 'AbortError')
})

test('leaving the loop (return) cancels the body so the server sees the close within 50 ms', async ({ server }) => {
  server.reply({ steps: [`data: ${oaChunk({ content: 'first' })}\n\n`, { wait: 5 }, `data: ${oaChunk({ content: 'second' })}\n\n`], hang: true })
  let returnedAt = 0
  for await (const chunk of openai(server).stream(simpleRequest(), { signal: new AbortController().signal })) {
    assert.equal(chunk, { type: 'text', delta: 'first' })
    returnedAt = performance.now()
    break
  }
  const closedAt = await within(server.requests[0].closed, 200, 'server close')
  assert.ok(closedAt - returnedAt < 50, `server saw the close ${closedAt - returnedAt} ms after return`)
})

test('abort() during a backoff wait ends at once with an AbortError and no further request', async ({ server }) => {
  server.reply(json(429, oaError('Rate limit reached'), { 'retry-after-ms': '5000' }), OK)
  const controller = new AbortController()
  const done = run(openai(server), controller.signal)
  while (!server.requests.length) await tick(2)
  await tick(40) // the client has read the 429 and sleeps
  const abortedAt = performance.now()
  controller.abort()
  const { error } = await within(done, 500, 'the stream after abort')
  assert.ok(performance.now() - abortedAt < 50, `ended ${performance.now() - abortedAt} ms after abort`)
  assert.is(error?.name, 'AbortError')
  assert.is(server.requests.length, 1)
})

test('an already aborted signal sends no request', async ({ server }) => {
  const controller = new AbortController()
  controller.abort()
  const { error } = await run(openai(server), controller.signal)
  assert.is(error?.name, 'AbortError')
  assert.is(server.requests.length, 0)
})

test('serverDelayMs reads retry-after-ms, Retry-After seconds and HTTP dates, and ignores unreasonable values', () => {
  const now = Date.parse('2025-06-01T10:00:00Z')
  const delay = (headers: Record<string, string>) => serverDelayMs(new Headers(headers), now)
  assert.is(delay({ 'retry-after-ms': '250', 'retry-after': '9' }), 250)
  assert.is(delay({ 'retry-after': '2' }), 2000)
  assert.is(delay({ 'retry-after': '0.5' }), 500)
  assert.is(delay({ 'retry-after': 'Sun, 01 Jun 2025 10:00:03 GMT' }), 3000)
  assert.is(delay({ 'retry-after': '3600' }), undefined)
  assert.is(delay({ 'retry-after': 'soon' }), undefined)
  assert.is(delay({}), undefined)
})

test('backoffMs doubles from 500 ms, caps at 8 s and takes up to 25% off as jitter', () => {
  assert.equal([0, 1, 2, 3, 4, 5].map((attempt) => backoffMs(attempt, () => 0)), [500, 1000, 2000, 4000, 8000, 8000])
  assert.is(backoffMs(0, () => 1), 375)
})

test('bodyMessage finds the message in the usual error bodies', () => {
  assert.is(bodyMessage('{"error":{"message":"bad key","type":"invalid_request_error"}}'), 'bad key')
  assert.is(bodyMessage('{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'), 'Overloaded')
  assert.is(bodyMessage('{"error":"model not found"}'), 'model not found')
  assert.is(bodyMessage('{"object":"error","message":"max_tokens too large","type":"BadRequestError"}'), 'max_tokens too large')
  assert.is(bodyMessage('{"detail":"Not Found"}'), 'Not Found')
  assert.is(bodyMessage('  upstream timeout \n'), 'upstream timeout')
  assert.is(bodyMessage(''), '(empty body)')
})

test.run()
