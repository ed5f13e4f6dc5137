import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { anthropicRequestBody, formatAnthropicMessages } from '../../lib/models/format-anthropic.js'
import { HINT, PARTIAL, travelContext } from './helpers/context.js'
import { call, DENIED, INTERRUPTED, msg, result, simpleRequest, text, thinking, weatherTool } from './helpers/msgs.js'
import { anthropicProblems } from './helpers/validate.js'

const test = suite('models/format-anthropic')

const said = (value: string) => ({ type: 'text', text: value })
const use = (id: string, name: string, input: Record<string, unknown>) => ({ type: 'tool_use', id, name, input })
const answer = (id: string, content: unknown[], isError = false) =>
  ({ type: 'tool_result', tool_use_id: id, content, ...(isError ? { is_error: true } : {}) })

test('a reply of several rounds becomes tool_use blocks answered at the head of the next user message', () => {
  const request = formatAnthropicMessages(travelContext())
  assert.equal(request, {
    system: 'You are a travel assistant.',
    messages: [
      { role: 'user', content: [said('Weather in Paris and Berlin?')] },
      { role: 'assistant', content: [
        { type: 'thinking', thinking: 'Two cities: call both.', signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3h' },
        said('Let me check both cities.'),
        use('call_1', 'get_weather', { city: 'Paris' }),
        use('call_2', 'get_weather', { city: 'Berlin' }),
      ] },
      { role: 'user', content: [
        answer('call_2', [said('12°C, rain')]),
        answer('call_1', [said('18°C, sun'), { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } }]),
      ] },
      { role: 'assistant', content: [use('call_3', 'get_time', { tz: 'Europe/Paris' }), use('call_4', 'get_time', { tz: 'Europe/Berlin' })] },
      { role: 'user', content: [answer('call_3', [said('14:05')]), answer('call_4', [said('Error: tz database unavailable')], true)] },
      { role: 'assistant', content: [said('Paris: 18°C and sunny; Berlin: 12°C and rainy.')] },
      { role: 'user', content: [said('Book me a flight to Berlin, and clean up my files.')] },
      { role: 'assistant', content: [use('call_5', 'delete_files', { path: '/home' })] },
      { role: 'user', content: [answer('call_5', [said(DENIED)]), said(HINT)] },
      { role: 'assistant', content: [said('I will not delete files. Booking now.'), use('call_6', 'book_flight', { from: 'PAR', to: 'BE' })] },
      { role: 'user', content: [answer('call_6', [said(INTERRUPTED)]), said('Cancel that. Thanks!')] },
    ],
  })
  assert.equal(anthropicProblems(request), [])
})

test('formatting leaves the messages untouched: the half-written call keeps its raw JSON', () => {
  const context = travelContext()
  const before = structuredClone(context)
  formatAnthropicMessages(context)
  assert.equal(context, before)
  assert.is((context[4].content[4] as { input: string }).input, PARTIAL)
})

test('unsigned thinking is dropped, and the user messages around an emptied reply are merged', () => {
  const request = formatAnthropicMessages([
    msg('user', [text('Hi')]),
    msg('assistant', [thinking('hmm, no signature')]),
    msg('user', [text('Hello?')]),
  ])
  assert.equal(request, { messages: [{ role: 'user', content: [said('Hi'), said('Hello?')] }] })
})

test('every system message joins the system prompt; blank text blocks are not sent', () => {
  const request = formatAnthropicMessages([
    msg('system', [text('Be brief.')]),
    msg('user', [text('Hi'), text('  ')]),
    msg('system', [text('The user is in Paris.')]),
    msg('user', [text('Weather?')]),
  ])
  assert.equal(request, {
    system: 'Be brief.\n\nThe user is in Paris.',
    messages: [{ role: 'user', content: [said('Hi'), said('Weather?')] }],
  })
})

test('a tool call without a result gets none invented', () => {
  const request = formatAnthropicMessages([msg('user', [text('Hi')]), msg('assistant', [call('call_9', 'get_weather', '{"city":"Rome"}')])])
  assert.equal(request.messages[1], { role: 'assistant', content: [use('call_9', 'get_weather', { city: 'Rome' })] })
  assert.equal(anthropicProblems(request), ['end: no tool_result for the last tool_use blocks'])
})

test('an empty tool output is sent as a tool_result without content', () => {
  const request = formatAnthropicMessages([msg('user', [text('Go')]), msg('assistant', [call('c', 'noop', '{}'), result('c', 'noop', '')])])
  assert.equal(request.messages[2], { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c' }] })
})

test('the validator catches wrong alternation, a late tool_result, a missing result and unsigned thinking', () => {
  const ask = { role: 'assistant', content: [use('x', 't', {})] }
  assert.ok(anthropicProblems({ messages: [ask, { role: 'user', content: [answer('x', [])] }] }).length)
  assert.ok(anthropicProblems({ messages: [{ role: 'user', content: [said('a')] }, ask, { role: 'user', content: [said('b'), answer('x', [])] }] }).length)
  assert.ok(anthropicProblems({ messages: [{ role: 'user', content: [said('a')] }, ask, { role: 'user', content: [said('b')] }] }).length)
  assert.ok(anthropicProblems({ messages: [{ role: 'user', content: [said('a')] }, { role: 'assistant', content: [{ type: 'thinking', thinking: 't' }] }] }).length)
  assert.equal(anthropicProblems({ messages: [{ role: 'user', content: [said('a')] }, ask, { role: 'user', content: [answer('x', [])] }] }), [])
})

test('the body has system, tools, tool_choice auto, thinking, max_tokens and stream', () => {
  const body = anthropicRequestBody(simpleRequest(), { model: 'claude-sonnet-4-5', maxTokens: 1024, thinking: { type: 'enabled', budget_tokens: 512 } })
  assert.equal(body, {
    model: 'claude-sonnet-4-5',
    max_tokens: 1024,
    messages: [{ role: 'user', content: [said('Weather in Paris?')] }],
    stream: true,
    system: 'You are a travel assistant.',
    tools: [weatherTool],
    tool_choice: { type: 'auto' },
    thinking: { type: 'enabled', budget_tokens: 512 },
  })
})

test("tool_choice 'none' is sent as {type: 'none'}; without tools neither tools nor tool_choice is sent", () => {
  assert.equal(anthropicRequestBody(simpleRequest({ tool_choice: 'none' }), { model: 'm', maxTokens: 1 }).tool_choice, { type: 'none' })
  const bare = anthropicRequestBody(simpleRequest({ tools: [], tool_choice: 'none' }), { model: 'm', maxTokens: 1 })
  assert.ok(!('tools' in bare) && !('tool_choice' in bare))
})

test('a tool_choice naming a tool forces that tool, except with extended thinking on (the API refuses it): then auto', () => {
  assert.equal(anthropicRequestBody(simpleRequest({ tool_choice: { name: 'weather' } }), { model: 'm', maxTokens: 1 }).tool_choice, { type: 'tool', name: 'weather' })
  const thinking = { type: 'enabled' as const, budget_tokens: 1024 }
  assert.equal(anthropicRequestBody(simpleRequest({ tool_choice: { name: 'weather' } }), { model: 'm', maxTokens: 2048, thinking }).tool_choice, { type: 'auto' })
})

test.run()
