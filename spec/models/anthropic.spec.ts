import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { ModelError } from '../../lib/core/errors.js'
import type { ModelChunk } from '../../lib/models/model.js'
import { anthropicModel } from '../../lib/models/anthropic.js'
import { simpleRequest } from './helpers/msgs.js'
import { startServer, type TestServer } from './helpers/server.js'
import {
  anBlockStart, anBlockStop, anDelta, anEvent, anMessageDelta, anMessageStart, anMessageStop, anPing, collect,
  cutsACharacter, pieces, recordingFetch,
} from './helpers/wire.js'

const test = suite<{ server: TestServer }>('models/anthropic')

test.before(async (context) => {
  context.server = await startServer()
})
test.after(async ({ server }) => server.close())
test.before.each(({ server }) => server.reset())

const signal = () => new AbortController().signal
const model = (server: TestServer, extra: Partial<Parameters<typeof anthropicModel>[0]> = {}) =>
  anthropicModel({ model: 'claude-sonnet-4-5', apiKey: 'sk-ant-test', baseURL: server.url, maxTokens: 1024, ...extra })

// Thinking with its signature, text with multibyte characters, two tool_use blocks with
// fragmented input (the first fragment empty, as the API sends it), a ping, usage with caching.
const FULL = [
  anMessageStart({ input_tokens: 472, cache_creation_input_tokens: 128, cache_read_input_tokens: 1024, output_tokens: 2 }),
  anBlockStart(0, { type: 'thinking', thinking: '', signature: '' }),
  anPing(),
  anDelta(0, { type: 'thinking_delta', thinking: 'Deux villes → ' }),
  anDelta(0, { type: 'thinking_delta', thinking: 'deux appels.' }),
  anDelta(0, { type: 'signature_delta', signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxDYL1n' }),
  anBlockStop(0),
  anBlockStart(1, { type: 'text', text: '' }),
  anDelta(1, { type: 'text_delta', text: 'Je vérifie ' }),
  anDelta(1, { type: 'text_delta', text: 'Paris 🌤️ et Berlin…' }),
  anBlockStop(1),
  anBlockStart(2, { type: 'tool_use', id: 'toolu_01A09q90qw90lq917835lq9', name: 'get_weather', input: {} }),
  anDelta(2, { type: 'input_json_delta', partial_json: '' }),
  anDelta(2, { type: 'input_json_delta', partial_json: '{"city": "Pa' }),
  anDelta(2, { type: 'input_json_delta', partial_json: 'ris"}' }),
  anBlockStop(2),
  anBlockStart(3, { type: 'tool_use', id: 'toolu_01B7e2kqm4Zr', name: 'get_weather', input: {} }),
  anDelta(3, { type: 'input_json_delta', partial_json: '{"city": "Berlin"}' }),
  anBlockStop(3),
  anMessageDelta('tool_use', { output_tokens: 89 }),
  anMessageStop(),
].join('')

const EXPECTED: ModelChunk[] = [
  { type: 'usage', input_tokens: 472, output_tokens: 2, cache_input_tokens: 1024, cache_creation_input_tokens: 128 },
  { type: 'thinking', delta: 'Deux villes → ' },
  { type: 'thinking', delta: 'deux appels.' },
  { type: 'thinking_signature', signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxDYL1n' },
  { type: 'text', delta: 'Je vérifie ' },
  { type: 'text', delta: 'Paris 🌤️ et Berlin…' },
  { type: 'tool_call', id: 'toolu_01A09q90qw90lq917835lq9', name: 'get_weather', delta: '' },
  { type: 'tool_call', id: 'toolu_01A09q90qw90lq917835lq9', name: 'get_weather', delta: '{"city": "Pa' },
  { type: 'tool_call', id: 'toolu_01A09q90qw90lq917835lq9', name: 'get_weather', delta: 'ris"}' },
  { type: 'tool_call', id: 'toolu_01B7e2kqm4Zr', name: 'get_weather', delta: '' },
  { type: 'tool_call', id: 'toolu_01B7e2kqm4Zr', name: 'get_weather', delta: '{"city": "Berlin"}' },
  { type: 'usage', input_tokens: 472, output_tokens: 89, cache_input_tokens: 1024, cache_creation_input_tokens: 128 },
]

test('a stream cut into 7-byte writes yields usage early, thinking with its signature, text, tool calls and the final usage', async ({ server }) => {
  server.reply({ steps: pieces(FULL, 7), gapMs: 1 })
  const { fetch, received } = recordingFetch()
  const { chunks, error } = await collect(model(server, { fetch }).stream(simpleRequest(), { signal: signal() }))
  assert.is(error, undefined)
  assert.equal(chunks, EXPECTED)
  assert.ok(received.length > 20, `only ${received.length} reads`)
  assert.ok(cutsACharacter(received), 'no read ended inside a multibyte character')
})

test('the request goes to {baseURL}/v1/messages with x-api-key, anthropic-version, system, tools and tool_choice', async ({ server }) => {
  server.reply({ steps: [FULL] })
  const thinking = { type: 'enabled', budget_tokens: 512 } as const
  await collect(model(server, { thinking, headers: { 'anthropic-beta': 'interleaved-thinking-2025-05-14' } }).stream(simpleRequest(), { signal: signal() }))
  const [request] = server.requests
  assert.is(request.url, '/v1/messages')
  assert.is(request.headers['x-api-key'], 'sk-ant-test')
  assert.is(request.headers['anthropic-version'], '2023-06-01')
  assert.is(request.headers['anthropic-beta'], 'interleaved-thinking-2025-05-14')
  assert.is(request.headers.authorization, undefined)
  assert.equal(request.body, {
    model: 'claude-sonnet-4-5',
    max_tokens: 1024,
    messages: [{ role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] }],
    stream: true,
    system: 'You are a travel assistant.',
    tools: [{ name: 'get_weather', description: 'The current weather in a city.', input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }],
    tool_choice: { type: 'auto' },
    thinking,
  })
})

test("tool_choice 'none' is sent as {type: 'none'}", async ({ server }) => {
  server.reply({ steps: [FULL] })
  await collect(model(server).stream(simpleRequest({ tool_choice: 'none' }), { signal: signal() }))
  assert.equal(server.requests[0].body.tool_choice, { type: 'none' })
})

test('a tool without arguments gets {} at content_block_stop', async ({ server }) => {
  server.reply({ steps: [[
    anMessageStart({ input_tokens: 10, output_tokens: 1 }),
    anBlockStart(0, { type: 'tool_use', id: 'toolu_1', name: 'list_files', input: {} }),
    anDelta(0, { type: 'input_json_delta', partial_json: '' }),
    anBlockStop(0),
    anMessageDelta('tool_use', { output_tokens: 12 }),
    anMessageStop(),
  ].join('')] })
  const { chunks } = await collect(model(server).stream(simpleRequest(), { signal: signal() }))
  assert.equal(chunks.filter((chunk) => chunk.type === 'tool_call'), [
    { type: 'tool_call', id: 'toolu_1', name: 'list_files', delta: '' },
    { type: 'tool_call', id: 'toolu_1', name: 'list_files', delta: '{}' },
  ])
})

test('an overloaded_error event after some text throws an upstream ModelError with its message', async ({ server }) => {
  server.reply({ steps: [[
    anMessageStart({ input_tokens: 10, output_tokens: 1 }),
    anBlockStart(0, { type: 'text', text: '' }),
    anDelta(0, { type: 'text_delta', text: 'Hel' }),
    anEvent({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }),
  ].join('')] })
  const { chunks, error } = await collect(model(server).stream(simpleRequest(), { signal: signal() }))
  assert.equal(chunks.map((chunk) => chunk.type), ['usage', 'text'])
  assert.instance(error, ModelError)
  assert.is(error.type, 'upstream')
  assert.match(error.message, 'Overloaded')
  assert.is(server.requests.length, 1, 'no retry after chunks were delivered')
})

test('an in-stream invalid_request_error keeps its type', async ({ server }) => {
  server.reply({ steps: [anEvent({ type: 'error', error: { type: 'invalid_request_error', message: 'prompt is too long' } })] })
  const { error } = await collect(model(server).stream(simpleRequest(), { signal: signal() }))
  assert.is(error?.type, 'invalid_request')
  assert.match(error.message, 'prompt is too long')
})

test('a stream that ends before message_stop is an upstream error', async ({ server }) => {
  server.reply({ steps: [anMessageStart({ input_tokens: 10, output_tokens: 1 }) + anBlockStart(0, { type: 'text', text: '' })] })
  const { error } = await collect(model(server, { maxRetries: 0 }).stream(simpleRequest(), { signal: signal() }))
  assert.is(error?.type, 'upstream')
})

test('without a key the stream fails with a setup error; a missing maxTokens is refused at once', async () => {
  const saved = process.env.ANTHROPIC_API_KEY
  delete process.env.ANTHROPIC_API_KEY
  try {
    const { error } = await collect(anthropicModel({ model: 'claude-sonnet-4-5', maxTokens: 10 }).stream(simpleRequest(), { signal: signal() }))
    assert.is(error?.type, 'setup')
    assert.throws(() => anthropicModel({ model: 'claude-sonnet-4-5' } as never), /maxTokens/)
  } finally {
    if (saved !== undefined) process.env.ANTHROPIC_API_KEY = saved
  }
})

test.run()
