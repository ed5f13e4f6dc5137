// The pure interrupt on plain states, without RxJS: states are built by folding hand-written
// events, and closeReply must give exactly the closing events of REFERENCE.md scenarios E, F, G.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { closeReply, counterClock, INTERRUPTION_REMINDER, replay, type AgentEvent, type Clock } from '../../lib/index.js'
import { ev } from '../helpers/events.js'

const test = suite('reducers/interrupt')
const clock = (): Clock => counterClock('x')
const summary = (events: AgentEvent[]) => events.map((e) => [e.type, 'tool_call_id' in e ? e.tool_call_id : 'block_id' in e ? e.block_id : ''].join(':'))

const start = [
  ev('USER_MESSAGE', { msg: { id: 'm', name: 'user', role: 'user', content: [], metadata: {}, created_at: 't', usage: null, finished_at: 't', finished_reason: null, structured_output: null, error: null } }),
  ev('REPLY_START', { session_id: 's', reply_id: 'r', name: 'A', role: 'assistant' }),
  ev('MODEL_CALL_START', { reply_id: 'r', model_name: 'm' }),
]

test('an idle state gives no events', () => {
  assert.equal(closeReply(replay([]), clock(), { reason: 'interrupted' }), [])
})

test('while the model streams: open blocks end, MODEL_CALL_END(interrupted) with usage so far, partial calls answered, REPLY_END', () => {
  const state = replay([...start,
    ev('MODEL_CALL_USAGE', { reply_id: 'r', input_tokens: 9, output_tokens: 3, cache_input_tokens: 1, cache_creation_input_tokens: 0 }),
    ev('TEXT_BLOCK_START', { reply_id: 'r', block_id: 't1' }), ev('TEXT_BLOCK_DELTA', { reply_id: 'r', block_id: 't1', delta: 'Par' }),
    ev('TEXT_BLOCK_END', { reply_id: 'r', block_id: 't1' }),
    ev('TOOL_CALL_START', { reply_id: 'r', tool_call_id: 'c1', tool_call_name: 'f' }), ev('TOOL_CALL_DELTA', { reply_id: 'r', tool_call_id: 'c1', delta: '{"a":' }),
  ])
  const events = closeReply(state, clock(), { reason: 'interrupted' })
  assert.equal(summary(events), ['TOOL_CALL_END:c1', 'MODEL_CALL_END:', 'TOOL_RESULT_START:c1', 'TOOL_RESULT_TEXT_DELTA:c1', 'TOOL_RESULT_END:c1', 'REPLY_END:'])
  const end = events[1]
  assert.equal(end.type === 'MODEL_CALL_END' && [end.finished_reason, end.input_tokens, end.output_tokens, end.cache_input_tokens], ['interrupted', 9, 3, 1])
  const delta = events[3]
  assert.is(delta.type === 'TOOL_RESULT_TEXT_DELTA' && delta.delta, INTERRUPTION_REMINDER)
  const after = replay(events, state)
  assert.is(after.status, 'idle')
  assert.is(after.usage.input_tokens, 9)
  assert.equal(after.context[1].content.map((b) => b.type), ['text', 'tool_call', 'tool_result'])
})

test('an open thinking block and an open text block both end', () => {
  const state = replay([...start,
    ev('THINKING_BLOCK_START', { reply_id: 'r', block_id: 'k1' }), ev('THINKING_BLOCK_DELTA', { reply_id: 'r', block_id: 'k1', delta: 'h' }),
  ])
  assert.equal(summary(closeReply(state, clock(), { reason: 'interrupted' })), ['THINKING_BLOCK_END:k1', 'MODEL_CALL_END:', 'REPLY_END:'])
})

test('while tools run: running results get only the reminder and END, first; unstarted calls the whole triple', () => {
  const state = replay([...start,
    ev('TOOL_CALL_START', { reply_id: 'r', tool_call_id: 'c1', tool_call_name: 'f' }), ev('TOOL_CALL_END', { reply_id: 'r', tool_call_id: 'c1' }),
    ev('TOOL_CALL_START', { reply_id: 'r', tool_call_id: 'c2', tool_call_name: 'g' }), ev('TOOL_CALL_END', { reply_id: 'r', tool_call_id: 'c2' }),
    ev('MODEL_CALL_END', { reply_id: 'r', input_tokens: 1, output_tokens: 1, cache_input_tokens: 0, cache_creation_input_tokens: 0, finished_reason: 'completed' }),
    ev('TOOL_RESULT_START', { reply_id: 'r', tool_call_id: 'c2', tool_call_name: 'g' }),
    ev('TOOL_RESULT_TEXT_DELTA', { reply_id: 'r', tool_call_id: 'c2', delta: 'partial ' }),
  ])
  const events = closeReply(state, clock(), { reason: 'interrupted' })
  assert.equal(summary(events), ['TOOL_RESULT_TEXT_DELTA:c2', 'TOOL_RESULT_END:c2', 'TOOL_RESULT_START:c1', 'TOOL_RESULT_TEXT_DELTA:c1', 'TOOL_RESULT_END:c1', 'REPLY_END:'])
  const after = replay(events, state)
  const c2 = after.context[1].content.find((b) => b.type === 'tool_result' && b.id === 'c2')
  assert.is(c2?.type === 'tool_result' && c2.output, `partial ${INTERRUPTION_REMINDER}`)
})

test('a model failure closes the reply with REPLY_END(error) and error results', () => {
  const state = replay([...start, ev('TOOL_CALL_START', { reply_id: 'r', tool_call_id: 'c1', tool_call_name: 'f' })])
  const events = closeReply(state, clock(), { reason: 'error', error: { type: 'upstream', message: '503' } })
  const end = events.at(-1)!
  assert.equal(end.type === 'REPLY_END' && [end.finished_reason, end.error], ['error', { type: 'upstream', message: '503' }])
  const resultEnd = events.find((e) => e.type === 'TOOL_RESULT_END')
  assert.is(resultEnd?.type === 'TOOL_RESULT_END' && resultEnd.state, 'error')
})

test('the same state always gives the same events (pure)', () => {
  const state = replay([...start, ev('TEXT_BLOCK_START', { reply_id: 'r', block_id: 't1' })])
  const before = JSON.stringify(state)
  assert.equal(closeReply(state, clock(), { reason: 'interrupted' }), closeReply(state, clock(), { reason: 'interrupted' }))
  assert.is(JSON.stringify(state), before, 'the state is not touched')
})

test('a call whose turn had come (the call before it ended on its own, nothing runs) is closed as a call stopped as it started: its output is a list of blocks, as AgentScope\'s', () => {
  const calls = [
    ev('TOOL_CALL_START', { reply_id: 'r', tool_call_id: 'c1', tool_call_name: 'f' }), ev('TOOL_CALL_END', { reply_id: 'r', tool_call_id: 'c1' }),
    ev('TOOL_CALL_START', { reply_id: 'r', tool_call_id: 'c2', tool_call_name: 'f' }), ev('TOOL_CALL_END', { reply_id: 'r', tool_call_id: 'c2' }),
    ev('TOOL_CALL_START', { reply_id: 'r', tool_call_id: 'c3', tool_call_name: 'f' }), ev('TOOL_CALL_END', { reply_id: 'r', tool_call_id: 'c3' }),
    ev('MODEL_CALL_END', { reply_id: 'r', input_tokens: 1, output_tokens: 1, cache_input_tokens: 0, cache_creation_input_tokens: 0, finished_reason: 'completed' }),
  ]
  const state = replay([...start, ...calls,
    ev('TOOL_RESULT_START', { reply_id: 'r', tool_call_id: 'c1', tool_call_name: 'f' }), ev('TOOL_STARTED', { reply_id: 'r', tool_call_id: 'c1' }),
    ev('TOOL_RESULT_TEXT_DELTA', { reply_id: 'r', tool_call_id: 'c1', delta: 'done' }), ev('TOOL_RESULT_END', { reply_id: 'r', tool_call_id: 'c1', state: 'success', metadata: {} }),
  ])
  const events = closeReply(state, clock(), { reason: 'interrupted' })
  assert.equal(summary(events), ['TOOL_RESULT_START:c2', 'TOOL_STARTED:c2', 'TOOL_RESULT_TEXT_DELTA:c2', 'TOOL_RESULT_END:c2', 'TOOL_RESULT_START:c3', 'TOOL_RESULT_TEXT_DELTA:c3', 'TOOL_RESULT_END:c3', 'REPLY_END:'])
  assert.equal(events[1].metadata, { not_run: true }, 'the log says nothing ran')
  const after = replay(events, state)
  const output = (id: string) => after.context[1].content.find((b) => b.type === 'tool_result' && b.id === id)
  const c2 = output('c2')
  assert.ok(c2?.type === 'tool_result' && Array.isArray(c2.output) && c2.output.length === 1 && c2.output[0].type === 'text' && c2.output[0].text === INTERRUPTION_REMINDER, 'blocks, for the call whose turn had come')
  const c3 = output('c3')
  assert.is(c3?.type === 'tool_result' && c3.output, INTERRUPTION_REMINDER, 'a string, for a call further back')
  // Nothing had ended yet (the Stop came before the first call started): every call gets a string.
  const none = closeReply(replay([...start, ...calls]), clock(), { reason: 'interrupted' })
  assert.not.ok(none.some((e) => e.type === 'TOOL_STARTED'))
})

test.run()
