import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { ModelError } from '../../lib/core/errors.js'
import type { ModelChunk } from '../../lib/models/model.js'
import { openAIChatModel } from '../../lib/models/openai.js'
import { simpleRequest } from './helpers/msgs.js'
import { startServer, type TestServer } from './helpers/server.js'
import {
  collect, cutsACharacter, oaChunk, oaStream, oaToolArgs, oaToolStart, oaUsage, pieces, recordingFetch,
} from './helpers/wire.js'

const test = suite<{ server: TestServer }>('models/openai')

test.before(async (context) => {
  context.server = await startServer()
})
test.after(async ({ server }) => server.close())
test.before.each(({ server }) => server.reset())

const signal = () => new AbortController().signal

// A reasoning model (DeepSeek / vLLM style reasoning_content), then text with multibyte
// characters, then two parallel calls whose argument fragments interleave, then usage.
const REASONING_AND_TOOLS = oaStream([
  oaChunk({ role: 'assistant', content: null, reasoning_content: '' }),
  oaChunk({ reasoning_content: 'Two cities → ' }),
  oaChunk({ reasoning_content: 'two calls.' }),
  oaChunk({ content: 'Je vérifie ' }),
  oaChunk({ content: 'Paris 🌤️ et Berlin…' }),
  oaChunk({ tool_calls: [oaToolStart(0, 'call_Xo2mWq', 'get_weather')] }),
  oaChunk({ tool_calls: [oaToolArgs(0, '{"ci')] }),
  oaChunk({ tool_calls: [oaToolStart(1, 'call_Yb7Zk1', 'get_weather')] }),
  oaChunk({ tool_calls: [oaToolArgs(1, '{"city": "Ber')] }),
  oaChunk({ tool_calls: [oaToolArgs(0, 'ty": "Paris"}')] }),
  oaChunk({ tool_calls: [oaToolArgs(1, 'lin"}')] }),
  oaChunk({}, 'tool_calls'),
  oaUsage(82, 41, 64),
])

const EXPECTED: ModelChunk[] = [
  { type: 'thinking', delta: 'Two cities → ' },
  { type: 'thinking', delta: 'two calls.' },
  { type: 'text', delta: 'Je vérifie ' },
  { type: 'text', delta: 'Paris 🌤️ et Berlin…' },
  { type: 'tool_call', id: 'call_Xo2mWq', name: 'get_weather', delta: '' },
  { type: 'tool_call', id: 'call_Xo2mWq', name: 'get_weather', delta: '{"ci' },
  { type: 'tool_call', id: 'call_Yb7Zk1', name: 'get_weather', delta: '' },
  { type: 'tool_call', id: 'call_Yb7Zk1', name: 'get_weather', delta: '{"city": "Ber' },
  { type: 'tool_call', id: 'call_Xo2mWq', name: 'get_weather', delta: 'ty": "Paris"}' },
  { type: 'tool_call', id: 'call_Yb7Zk1', name: 'get_weather', delta: 'lin"}' },
  { type: 'usage', input_tokens: 82, output_tokens: 41, cache_input_tokens: 64 },
]

test('a stream cut into 7-byte writes (mid-line, mid-JSON, mid-character) yields thinking, text, parallel tool calls and usage', async ({ server }) => {
  server.reply({ steps: pieces(REASONING_AND_TOOLS, 7), gapMs: 1 })
  const { fetch, received } = recordingFetch()
  const model = openAIChatModel({ model: 'deepseek-reasoner', apiKey: 'sk-test', baseURL: `${server.url}/v1`, fetch })
  const { chunks, error } = await collect(model.stream(simpleRequest(), { signal: signal() }))
  assert.is(error, undefined)
  assert.equal(chunks, EXPECTED)
  // The client really saw the awkward boundaries.
  assert.ok(received.length > 20, `only ${received.length} reads`)
  assert.ok(cutsACharacter(received), 'no read ended inside a multibyte character')
})

test('an image the model returns as a data: URL in delta.images is a data chunk (OpenRouter style); other URLs are left out', async ({ server }) => {
  server.reply({ steps: [oaStream([
    oaChunk({ content: 'Here:' }),
    oaChunk({ images: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0K' } }, { type: 'image_url', image_url: { url: 'https://x.example/a.png' } }] }),
    oaChunk({}, 'stop'),
  ])] })
  const model = openAIChatModel({ model: 'm', apiKey: 'sk-test', baseURL: `${server.url}/v1` })
  const { chunks, error } = await collect(model.stream(simpleRequest(), { signal: signal() }))
  assert.is(error, undefined)
  assert.equal(chunks.filter((c) => c.type !== 'usage'), [{ type: 'text', delta: 'Here:' }, { type: 'data', media_type: 'image/png', data: 'iVBORw0K' }])
})

test('the request goes to {baseURL}/chat/completions with a bearer key, the stream options, tools and tool_choice', async ({ server }) => {
  server.reply({ steps: [oaStream([oaChunk({ content: 'ok' }, 'stop'), oaUsage(5, 1, 0)])] })
  const model = openAIChatModel({
    model: 'gpt-4o-mini', apiKey: 'sk-test', baseURL: `${server.url}/v1/`, temperature: 0.3, maxTokens: 300,
    headers: { 'x-trace': 'abc' },
  })
  assert.is(model.name, 'gpt-4o-mini')
  await collect(model.stream(simpleRequest(), { signal: signal() }))
  const [request] = server.requests
  assert.is(request.method, 'POST')
  assert.is(request.url, '/v1/chat/completions')
  assert.is(request.headers.authorization, 'Bearer sk-test')
  assert.is(request.headers['content-type'], 'application/json')
  assert.is(request.headers['x-trace'], 'abc')
  assert.equal(request.body, {
    model: 'gpt-4o-mini',
    messages: [{ role: 'system', content: 'You are a travel assistant.' }, { role: 'user', content: 'Weather in Paris?' }],
    stream: true,
    stream_options: { include_usage: true },
    tools: [{ type: 'function', function: {
      name: 'get_weather', description: 'The current weather in a city.',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    } }],
    tool_choice: 'auto',
    temperature: 0.3,
    max_tokens: 300,
  })
})

test("tool_choice 'none' is sent with the tools", async ({ server }) => {
  server.reply({ steps: [oaStream([oaChunk({ content: 'Summary.' }, 'stop')])] })
  const model = openAIChatModel({ model: 'm', baseURL: server.url })
  const { chunks } = await collect(model.stream(simpleRequest({ tool_choice: 'none' }), { signal: signal() }))
  assert.equal(chunks, [{ type: 'text', delta: 'Summary.' }])
  assert.is(server.requests[0].body.tool_choice, 'none')
  assert.is(server.requests[0].body.tools.length, 1)
  assert.is(server.requests[0].headers.authorization, undefined, 'no key, no Authorization header')
})

test('OPENAI_BASE_URL and OPENAI_API_KEY are the defaults', async ({ server }) => {
  const saved = { url: process.env.OPENAI_BASE_URL, key: process.env.OPENAI_API_KEY }
  process.env.OPENAI_BASE_URL = `${server.url}/compat`
  process.env.OPENAI_API_KEY = 'sk-from-env'
  try {
    server.reply({ steps: [oaStream([oaChunk({ content: 'hi' }, 'stop')])] })
    await collect(openAIChatModel({ model: 'm' }).stream(simpleRequest(), { signal: signal() }))
    assert.is(server.requests[0].url, '/compat/chat/completions')
    assert.is(server.requests[0].headers.authorization, 'Bearer sk-from-env')
  } finally {
    if (saved.url === undefined) delete process.env.OPENAI_BASE_URL
    else process.env.OPENAI_BASE_URL = saved.url
    if (saved.key === undefined) delete process.env.OPENAI_API_KEY
    else process.env.OPENAI_API_KEY = saved.key
  }
})

test('a call streamed without any arguments gets {} at finish_reason', async ({ server }) => {
  server.reply({ steps: [oaStream([oaChunk({ tool_calls: [oaToolStart(0, 'call_1', 'list_files')] }), oaChunk({}, 'tool_calls')])] })
  const model = openAIChatModel({ model: 'm', baseURL: server.url })
  const { chunks } = await collect(model.stream(simpleRequest(), { signal: signal() }))
  assert.equal(chunks, [
    { type: 'tool_call', id: 'call_1', name: 'list_files', delta: '' },
    { type: 'tool_call', id: 'call_1', name: 'list_files', delta: '{}' },
  ])
})

test('an error object inside the stream throws a ModelError with its message, after the chunks before it', async ({ server }) => {
  server.reply({ steps: [
    `data: ${oaChunk({ content: 'Partial' })}\n\n`,
    'data: {"error":{"message":"The server had an error while processing your request.","type":"server_error","param":null,"code":null}}\n\n',
  ] })
  const model = openAIChatModel({ model: 'm', baseURL: server.url })
  const { chunks, error } = await collect(model.stream(simpleRequest(), { signal: signal() }))
  assert.equal(chunks, [{ type: 'text', delta: 'Partial' }])
  assert.instance(error, ModelError)
  assert.is(error.type, 'upstream')
  assert.match(error.message, 'The server had an error while processing your request.')
  assert.is(server.requests.length, 1)
})

test('an in-stream rate limit error keeps its type', async ({ server }) => {
  server.reply({ steps: ['data: {"error":{"message":"Rate limit reached for requests","type":"requests","code":"rate_limit_exceeded"}}\n\n'] })
  const { error } = await collect(openAIChatModel({ model: 'm', baseURL: server.url, maxRetries: 0 }).stream(simpleRequest(), { signal: signal() }))
  assert.is(error?.type, 'rate_limit')
})

test('the official endpoint without a key fails with a setup error before any request', async () => {
  const saved = process.env.OPENAI_API_KEY
  delete process.env.OPENAI_API_KEY
  try {
    let called = false
    const model = openAIChatModel({ model: 'gpt-4o', baseURL: 'https://api.openai.com/v1', fetch: async () => { called = true; return new Response('') } })
    const { error } = await collect(model.stream(simpleRequest(), { signal: signal() }))
    assert.instance(error, ModelError)
    assert.is(error.type, 'setup')
    assert.is(called, false)
  } finally {
    if (saved !== undefined) process.env.OPENAI_API_KEY = saved
  }
})

test.run()
