import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { formatOpenAIMessages, openAIRequestBody } from '../../lib/models/format-openai.js'
import { HINT, PARTIAL, travelContext } from './helpers/context.js'
import { call, DENIED, image, INTERRUPTED, msg, result, simpleRequest, text, thinking, weatherTool } from './helpers/msgs.js'
import { openAIProblems } from './helpers/validate.js'

const test = suite('models/format-openai')

const fn = (id: string, name: string, args: string) => ({ id, type: 'function', function: { name, arguments: args } })

test('a reply of several rounds becomes assistant tool_calls, tool messages and a user hint, in order', () => {
  const messages = formatOpenAIMessages(travelContext())
  assert.equal(messages, [
    { role: 'system', content: 'You are a travel assistant.' },
    { role: 'user', content: 'Weather in Paris and Berlin?' },
    { role: 'assistant', content: 'Let me check both cities.', tool_calls: [
      fn('call_1', 'get_weather', '{"city": "Paris"}'), fn('call_2', 'get_weather', '{"city":"Berlin"}'),
    ] },
    { role: 'tool', tool_call_id: 'call_2', content: '12°C, rain' },
    { role: 'tool', tool_call_id: 'call_1', content: '18°C, sun\n[image/png data omitted: not supported here]' },
    { role: 'assistant', content: null, tool_calls: [
      fn('call_3', 'get_time', '{"tz": "Europe/Paris"}'), fn('call_4', 'get_time', '{"tz": "Europe/Berlin"}'),
    ] },
    { role: 'tool', tool_call_id: 'call_3', content: '14:05' },
    { role: 'tool', tool_call_id: 'call_4', content: 'Error: tz database unavailable' },
    { role: 'assistant', content: 'Paris: 18°C and sunny; Berlin: 12°C and rainy.' },
    { role: 'user', content: 'Book me a flight to Berlin, and clean up my files.' },
    { role: 'assistant', content: null, tool_calls: [fn('call_5', 'delete_files', '{"path": "/home"}')] },
    { role: 'tool', tool_call_id: 'call_5', content: DENIED },
    { role: 'user', content: HINT },
    { role: 'assistant', content: 'I will not delete files. Booking now.', tool_calls: [fn('call_6', 'book_flight', '{"from":"PAR","to":"BE"}')] },
    { role: 'tool', tool_call_id: 'call_6', content: INTERRUPTED },
    { role: 'user', content: 'Cancel that. Thanks!' },
  ])
  assert.equal(openAIProblems(messages), [])
})

test('formatting leaves the messages untouched: the half-written call keeps its raw JSON', () => {
  const context = travelContext()
  const before = structuredClone(context)
  formatOpenAIMessages(context)
  assert.equal(context, before)
  assert.is((context[4].content[4] as { input: string }).input, PARTIAL)
})

test('thinking is never sent back, and a thinking-only message is left out', () => {
  const messages = formatOpenAIMessages([
    msg('user', [text('Hi')]),
    msg('assistant', [thinking('hmm', 'sig')]),
    msg('user', [text('Hello?')]),
  ])
  assert.equal(messages, [{ role: 'user', content: 'Hi' }, { role: 'user', content: 'Hello?' }])
})

test('a system message after the first stays a system message in place', () => {
  const messages = formatOpenAIMessages([
    msg('system', [text('Be brief.')]),
    msg('user', [text('Hi')]),
    msg('system', [text('The user is in Paris.')]),
  ])
  assert.equal(messages.map((m) => [m.role, m.content]), [['system', 'Be brief.'], ['user', 'Hi'], ['system', 'The user is in Paris.']])
})

test('a user image is sent as an image_url part with a data URL', () => {
  const [message] = formatOpenAIMessages([msg('user', [text('What is this?'), image('AAAA', 'image/jpeg')])])
  assert.equal(message, { role: 'user', content: [
    { type: 'text', text: 'What is this?' },
    { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,AAAA' } },
  ] })
})

test('a tool call without a result gets none invented', () => {
  const messages = formatOpenAIMessages([msg('user', [text('Hi')]), msg('assistant', [call('call_9', 'get_weather', '{"city":"Rome"}')])])
  assert.equal(messages.slice(1), [{ role: 'assistant', content: null, tool_calls: [fn('call_9', 'get_weather', '{"city":"Rome"}')] }])
  assert.equal(openAIProblems(messages), ['end: no tool results for call_9'])
})

test('input that is no repairable object is sent as {}', () => {
  const messages = formatOpenAIMessages([
    msg('assistant', [call('a', 't', '{"x": tr'), call('b', 't', '[1, 2'), call('c', 't', ''), result('a', 't', 'r'), result('b', 't', 'r'), result('c', 't', 'r')]),
  ])
  const args = (messages[0] as { tool_calls: Array<{ function: { arguments: string } }> }).tool_calls.map((c) => c.function.arguments)
  assert.equal(args, ['{}', '{}', '{}'])
})

test('the validator catches a missing result, an orphan result, bad JSON and a message between call and result', () => {
  const assistant = (args: string) => ({ role: 'assistant', content: null, tool_calls: [fn('x', 't', args)] })
  assert.ok(openAIProblems([assistant('{}'), { role: 'user', content: 'hi' }]).length)
  assert.ok(openAIProblems([{ role: 'tool', tool_call_id: 'x', content: '' }]).length)
  assert.ok(openAIProblems([assistant('{"a": '), { role: 'tool', tool_call_id: 'x', content: '' }]).length)
  assert.equal(openAIProblems([assistant('{}'), { role: 'tool', tool_call_id: 'x', content: '' }]), [])
})

test('the body asks for a stream with usage and carries tools, tool_choice, temperature and max tokens', () => {
  const request = simpleRequest()
  const body = openAIRequestBody(request, { model: 'gpt-4o-mini', temperature: 0.2, maxTokens: 256 })
  assert.equal(body, {
    model: 'gpt-4o-mini',
    messages: [{ role: 'system', content: 'You are a travel assistant.' }, { role: 'user', content: 'Weather in Paris?' }],
    stream: true,
    stream_options: { include_usage: true },
    tools: [{ type: 'function', function: { name: weatherTool.name, description: weatherTool.description, parameters: weatherTool.input_schema } }],
    tool_choice: 'auto',
    temperature: 0.2,
    max_tokens: 256,
  })
  const official = openAIRequestBody(request, { model: 'gpt-5', maxTokens: 99, maxTokensField: 'max_completion_tokens' })
  assert.is(official.max_completion_tokens, 99)
  assert.is(official.max_tokens, undefined)
})

test("tool_choice 'none' is sent as 'none'; without tools neither tools nor tool_choice is sent", () => {
  assert.is(openAIRequestBody(simpleRequest({ tool_choice: 'none' }), { model: 'm' }).tool_choice, 'none')
  const bare = openAIRequestBody(simpleRequest({ tools: [], tool_choice: 'none' }), { model: 'm' })
  assert.ok(!('tools' in bare) && !('tool_choice' in bare))
})

test('a tool_choice naming a tool forces that tool', () => {
  assert.equal(openAIRequestBody(simpleRequest({ tool_choice: { name: 'weather' } }), { model: 'm' }).tool_choice, { type: 'function', function: { name: 'weather' } })
})

test.run()
