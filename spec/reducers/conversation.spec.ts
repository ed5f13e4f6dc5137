// The reducers as state machines: folding events builds one assistant message per reply, a late
// result for a closed call is ignored, unknown events return the same state object, streamed
// deltas never copy the conversation, and a log folds to the same state after a JSON round trip.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { AgentError, replay, rootReducer, type AgentEvent } from '../../lib/index.js'
import { ev } from '../helpers/events.js'

const test = suite('reducers/conversation')
const msg = (id: string) => ({ id, name: 'user', role: 'user' as const, content: [], metadata: {}, created_at: 't', usage: null, finished_at: 't', finished_reason: null, structured_output: null, error: null })
const usage = { input_tokens: 3, output_tokens: 2, cache_input_tokens: 0, cache_creation_input_tokens: 0 }

const round: AgentEvent[] = [
  ev('USER_MESSAGE', { msg: msg('m1') }),
  ev('REPLY_START', { session_id: 's', reply_id: 'r1', name: 'A', role: 'assistant' }),
  ev('MODEL_CALL_START', { reply_id: 'r1', model_name: 'm' }),
  ev('TEXT_BLOCK_START', { reply_id: 'r1', block_id: 't1' }),
  ev('TEXT_BLOCK_DELTA', { reply_id: 'r1', block_id: 't1', delta: 'Hel' }),
  ev('TEXT_BLOCK_DELTA', { reply_id: 'r1', block_id: 't1', delta: 'lo' }),
  ev('TEXT_BLOCK_END', { reply_id: 'r1', block_id: 't1' }),
  ev('TOOL_CALL_START', { reply_id: 'r1', tool_call_id: 'c1', tool_call_name: 'f' }),
  ev('TOOL_CALL_DELTA', { reply_id: 'r1', tool_call_id: 'c1', delta: '{}' }),
  ev('TOOL_CALL_END', { reply_id: 'r1', tool_call_id: 'c1' }),
  ev('MODEL_CALL_END', { reply_id: 'r1', ...usage, finished_reason: 'completed' }),
  ev('TOOL_RESULT_START', { reply_id: 'r1', tool_call_id: 'c1', tool_call_name: 'f' }),
  ev('TOOL_RESULT_TEXT_DELTA', { reply_id: 'r1', tool_call_id: 'c1', delta: 'ok' }),
  ev('TOOL_RESULT_END', { reply_id: 'r1', tool_call_id: 'c1', state: 'success', metadata: { took: 3 } }),
  ev('REPLY_END', { session_id: 's', reply_id: 'r1', finished_reason: 'completed', error: null }),
]

test('a reply folds into one assistant message with id = reply_id, holding every block in order', () => {
  const state = replay(round)
  assert.is(state.seq, round.length)
  assert.is(state.reply_msg, null)
  assert.is(state.status, 'idle')
  const [user, reply] = state.context
  assert.is(user.id, 'm1')
  assert.is(reply.id, 'r1')
  assert.equal(reply.content.map((b) => b.type), ['text', 'tool_call', 'tool_result'])
  assert.equal(reply.content[0].type === 'text' && reply.content[0].text, 'Hello')
  const [, call, result] = reply.content
  assert.equal(call.type === 'tool_call' && [call.input, call.state], ['{}', 'finished'])
  assert.equal(result.type === 'tool_result' && [result.output, result.state, result.metadata], ['ok', 'success', { took: 3 }])
  assert.equal(reply.usage, usage)
  assert.equal(state.usage, usage)
  assert.is(reply.finished_reason, 'completed')
})

test("a running result carries its TOOL_RESULT_START's metadata (a sub-agent call's child_session_id) until its TOOL_RESULT_END's replaces it", () => {
  const started = [...round.slice(0, 11), ev('TOOL_RESULT_START', { reply_id: 'r1', tool_call_id: 'c1', tool_call_name: 'f', metadata: { child_session_id: 'kid' } })]
  const running = replay(started).reply_msg!.content.find((b) => b.type === 'tool_result')!
  assert.equal(running.type === 'tool_result' && [running.state, running.metadata], ['running', { child_session_id: 'kid' }], 'no seq: the position is the log\'s')
  const ended = replay([...started, ...round.slice(12)]).context[1].content.find((b) => b.type === 'tool_result')!
  assert.equal(ended.type === 'tool_result' && ended.metadata, { took: 3 })
})

test('a late result for a closed call is ignored: recorded nowhere', () => {
  const closed = replay(round.slice(0, 14))
  const late = [ev('TOOL_RESULT_TEXT_DELTA', { reply_id: 'r1', tool_call_id: 'c1', delta: 'late!' }), ev('TOOL_RESULT_END', { reply_id: 'r1', tool_call_id: 'c1', state: 'error', metadata: {} })]
  const after = replay(late, closed)
  assert.equal(after.reply_msg, closed.reply_msg)
  assert.is(after.reply_msg, closed.reply_msg, 'the very same object')
})

test('events for another reply, or block events for unknown blocks, leave the slices untouched', () => {
  const state = replay(round.slice(0, 5))
  for (const event of [
    ev('TEXT_BLOCK_DELTA', { reply_id: 'other', block_id: 't1', delta: 'x' }),
    ev('TEXT_BLOCK_DELTA', { reply_id: 'r1', block_id: 'nope', delta: 'x' }),
    ev('CUSTOM', { name: 'n', value: {} }),
  ]) {
    const next = rootReducer(state, event)
    assert.is(next.reply_msg, state.reply_msg)
    assert.is(next.context, state.context)
    assert.is(next.seq, state.seq + 1)
  }
})

test('a streamed delta shares the context and every other block (structural sharing)', () => {
  const state = replay(round.slice(0, 9))
  const next = rootReducer(state, ev('TOOL_CALL_DELTA', { reply_id: 'r1', tool_call_id: 'c1', delta: ' ' }))
  assert.is(next.context, state.context, 'the conversation is not copied')
  assert.is(next.reply_msg!.content[0], state.reply_msg!.content[0], 'the other blocks are shared')
  assert.is.not(next.reply_msg!.content[1], state.reply_msg!.content[1])
})

test('a log sent through JSON folds to the same state', () => {
  assert.equal(replay(JSON.parse(JSON.stringify(round))), replay(round))
})

test('strict replay refuses a log that cannot have happened, naming the event, and accepts the real one', () => {
  const stamped = round.map((e, i) => ({ ...e, metadata: { seq: i + 1 } })) as AgentEvent[]
  assert.equal(replay(stamped, undefined, { strict: true }), replay(stamped))
  const endFirst = [...stamped.slice(0, 6), stamped[14], ...stamped.slice(6, 14)].map((e, i) => ({ ...e, metadata: { seq: i + 1 } })) as AgentEvent[]
  assert.throws(() => replay(endFirst, undefined, { strict: true }), (e: AgentError) => e.code === 'INVALID_LOG' && /#7 REPLY_END/.test(e.message))
  assert.throws(() => replay([null as never]), (e: AgentError) => e.code === 'INVALID_LOG' && /Entry 1/.test(e.message))
})

test.run()
