// The wire format: a fixture of every event and message kind is accepted unchanged, and a wrong
// type, a missing field and an unknown extra field are each rejected (REFERENCE.md sections 1-3).
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { AgentEventSchema, MsgSchema, validateEvent, AgentError, OutputEventSchema, InputEventSchema } from '../../lib/index.js'

const test = suite('lib/events')
const base = { id: 'ev-1', created_at: '2026-01-01T00:00:00.000Z', metadata: {} }
const at = '2026-01-01T00:00:00.000Z'
const call = { type: 'tool_call', id: 'c-1', name: 'get_weather', input: '{"city":"Paris"}', state: 'asking', created_at: at, finished_at: null }
const result = { type: 'tool_result', id: 'c-1', name: 'get_weather', output: 'Sunny', state: 'success', metadata: {}, created_at: at, finished_at: at }
const r = { reply_id: 'r-1' }
const b = { reply_id: 'r-1', block_id: 'b-1' }
const c = { reply_id: 'r-1', tool_call_id: 'c-1' }
const usage = { input_tokens: 1, output_tokens: 2, cache_input_tokens: 0, cache_creation_input_tokens: 0 }

export const fixtures: Record<string, Record<string, unknown>> = {
  REPLY_START: { session_id: 's-1', ...r, name: 'Friday', role: 'assistant' },
  REPLY_END: { session_id: 's-1', ...r, finished_reason: 'error', error: { type: 'rate_limit', message: 'slow down' } },
  MODEL_CALL_START: { ...r, model_name: 'gpt' },
  MODEL_CALL_END: { ...r, ...usage, finished_reason: 'interrupted' },
  TEXT_BLOCK_START: b, TEXT_BLOCK_DELTA: { ...b, delta: 'Hi' }, TEXT_BLOCK_END: b,
  THINKING_BLOCK_START: b, THINKING_BLOCK_DELTA: { ...b, delta: 'hmm' }, THINKING_BLOCK_END: b,
  DATA_BLOCK_START: { ...b, media_type: 'image/png' }, DATA_BLOCK_DELTA: { ...b, data: 'iVBO', media_type: 'image/png' }, DATA_BLOCK_END: b,
  HINT_BLOCK: { ...b, hint: 'be brief', source: null },
  TOOL_CALL_START: { ...c, tool_call_name: 'get_weather' }, TOOL_CALL_DELTA: { ...c, delta: '{"ci' }, TOOL_CALL_END: c,
  TOOL_RESULT_START: { ...c, tool_call_name: 'get_weather' }, TOOL_RESULT_TEXT_DELTA: { ...c, delta: 'Sunny' },
  TOOL_RESULT_DATA_DELTA: { ...c, block_id: 'd-1', media_type: 'image/png', data: null, url: 'https://x.example/a.png' },
  TOOL_RESULT_END: { ...c, state: 'interrupted' },
  REQUIRE_USER_CONFIRM: { ...r, tool_calls: [call] },
  REQUIRE_EXTERNAL_EXECUTION: { ...r, tool_calls: [{ ...call, state: 'submitted' }] },
  EXCEED_MAX_ITERS: { ...r, name: 'Friday' },
  USER_CONFIRM_RESULT: { ...r, confirm_results: [{ confirmed: true, tool_call: call, rules: [{ tool_name: 'get_weather', rule_content: null, behavior: 'allow', source: 'user' }] }] },
  EXTERNAL_EXECUTION_RESULT: { ...r, execution_results: [result] },
  USER_INTERRUPT: r,
  USER_MESSAGE: { msg: { id: 'm-1', name: 'user', role: 'user', content: [{ type: 'text', id: 't-1', text: 'hi', created_at: at, finished_at: at }], metadata: {}, created_at: at, usage: null, finished_at: at, finished_reason: null, structured_output: null, error: null } },
  INTERRUPT_REQUESTED: r,
  MODEL_CALL_USAGE: { ...r, ...usage },
  TOOL_STARTED: c,
  RUNS_DECIDED: { ...r, tool_call_ids: ['c-1'] },
  HINT_ADDED: { ...b, hint: [{ type: 'text', id: 't-2', text: 'call the tool', created_at: at, finished_at: at }], source: null },
  CONTEXT_COMPACTED: { ...r, summary: 'The user asked for the weather.', model_name: 'm', covers: { messages: 2, blocks: 0 }, ...usage },
  MESSAGE_STEERED: { ...r, msg: { id: 'm-2', name: 'user', role: 'user', content: [{ type: 'text', id: 't-2', text: 'also', created_at: at, finished_at: at }], metadata: {}, created_at: at, usage: null, finished_at: at, finished_reason: null, structured_output: null, error: null } },
  STEER_JOINED: { ...r, msg_ids: ['m-2'], continuation_id: 'm-3' },
  MESSAGE_QUEUED: { msg: { id: 'm-2', name: 'user', role: 'user', content: [{ type: 'text', id: 't-2', text: 'also', created_at: at, finished_at: at }], metadata: {}, created_at: at, usage: null, finished_at: at, finished_reason: null, structured_output: null, error: null }, first: false },
  MESSAGE_UNQUEUED: { msg_id: 'm-2' },
  QUEUE_RETURNED: { ...r, returned: [{ id: 'm-2', msg: { id: 'm-2', name: 'user', role: 'user', content: [], metadata: {}, created_at: at, usage: null, finished_at: at, finished_reason: null, structured_output: null, error: null }, queued_at: at }] },
  STOP_REQUESTED: { ...r, when: 'step', keep_queue: false },
  CUSTOM: { name: 'progress', value: { pct: 50 } },
}

test('every event type has a fixture, and each is accepted unchanged', () => {
  const known = AgentEventSchema.options.map((s) => s.shape.type.value).sort()
  assert.equal(Object.keys(fixtures).sort(), known)
  for (const [type, fields] of Object.entries(fixtures)) {
    const event = { ...base, type, ...fields }
    assert.equal(AgentEventSchema.parse(event), event, type)
  }
})

test('output and input events are told apart', () => {
  assert.ok(OutputEventSchema.safeParse({ ...base, type: 'REPLY_START', ...fixtures.REPLY_START }).success)
  assert.not.ok(OutputEventSchema.safeParse({ ...base, type: 'USER_INTERRUPT', ...fixtures.USER_INTERRUPT }).success)
  assert.ok(InputEventSchema.safeParse({ ...base, type: 'USER_INTERRUPT', ...fixtures.USER_INTERRUPT }).success)
})

test('a wrong type, a missing field and an unknown extra field are each rejected', () => {
  for (const [type, fields] of Object.entries(fixtures)) {
    const event: Record<string, unknown> = { ...base, type, ...fields }
    const [field] = Object.keys(fields)
    assert.not.ok(AgentEventSchema.safeParse({ ...event, type: 'NOT_A_TYPE' }).success, `${type}: wrong type`)
    const missing = { ...event }
    delete missing[field]
    assert.not.ok(AgentEventSchema.safeParse(missing).success, `${type}: missing ${field}`)
    assert.not.ok(AgentEventSchema.safeParse({ ...event, extra: 1 }).success, `${type}: extra field`)
    assert.not.ok(AgentEventSchema.safeParse({ ...event, [field]: Symbol('x') }).success, `${type}: ${field} of the wrong type`)
  }
})

test('messages and blocks are strict, except the thinking block which keeps provider extras', () => {
  const msg = fixtures.USER_MESSAGE.msg as Record<string, unknown>
  assert.ok(MsgSchema.safeParse(msg).success)
  assert.not.ok(MsgSchema.safeParse({ ...msg, extra: 1 }).success)
  assert.not.ok(MsgSchema.safeParse({ ...msg, role: 'robot' }).success)
  const { usage: _u, ...noUsage } = msg
  assert.not.ok(MsgSchema.safeParse(noUsage).success)
  const thinking = { type: 'thinking', id: 'k-1', thinking: 'hmm', signature: 'sig', created_at: at, finished_at: at }
  assert.equal(MsgSchema.parse({ ...msg, content: [thinking] }).content[0], thinking)
  assert.not.ok(MsgSchema.safeParse({ ...msg, content: [{ ...result, extra: true }] }).success)
  assert.ok(MsgSchema.safeParse({ ...msg, content: [call, result] }).success)
})

test('validateEvent names the field and says what to do', () => {
  try {
    validateEvent({ ...base, type: 'TEXT_BLOCK_DELTA', reply_id: 'r-1', block_id: 'b-1' })
    assert.unreachable()
  } catch (error) {
    assert.instance(error, AgentError)
    assert.is((error as AgentError).code, 'INVALID_EVENT')
    assert.match((error as Error).message, 'delta')
  }
})

test.run()
