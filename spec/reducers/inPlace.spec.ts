// The store's fold writes into the last state (a streamed delta, a block added or closed) only
// while no one outside the store can hold it. These specs hold states the ways a caller can (a state$ subscriber, agent.state, a
// subscription made mid-stream), deep-freeze them so any later write would throw, stream more
// deltas of every kind, and check that each held state is still what it was; and that the fold
// still equals the pure replay of the log.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { z } from 'zod'
import { callTool, counterClock, createAgent, defineTool, replay, say, scriptedModel, think, UserMsg, type AgentEvent, type AgentState } from '../../lib/index.js'
import { inPlaceReducer } from '../../reducers/inPlace.js'
import { initialState } from '../../reducers/state.js'
import { ev } from '../helpers/events.js'

const test = suite('reducers/inPlace')

const deepFreeze = <T>(value: T): T => {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const child of Object.values(value)) deepFreeze(child)
  }
  return value
}

/** A state held by a caller, with the JSON it had when it was taken. */
const hold = (state: AgentState) => ({ state: deepFreeze(state), json: JSON.stringify(state) })
const unchanged = (held: { state: AgentState; json: string }[]) => {
  for (const [i, h] of held.entries()) assert.is(JSON.stringify(h.state), h.json, `held state ${i} (seq ${h.state.seq}) changed`)
}

const streamingTool = defineTool({
  name: 'lines', description: 'streams a few lines', input: z.object({ n: z.number() }),
  async *execute({ n }) {
    for (let i = 0; i < n; i++) yield `line ${i}\n`
  },
})

/**
 * One reply with every kind of streamed delta: thinking, text, tool-call input, tool-result text.
 * The model's chunks come a timer apart (a state$ subscriber is given each one's state); the tool's
 * lines all in one task (written in place, then published once).
 */
const streamingAgent = () => createAgent({
  name: 'A', clock: counterClock('t'), tools: [streamingTool],
  model: scriptedModel([
    [...think('let me think about it', 6), ...say('I will read it', 5), ...callTool('c1', 'lines', { n: 6 }, 4)],
    [...say('It says six lines, one per number from zero to five.', 12)],
  ], { chunkDelayMs: 1 }),
})

const reducerRound: AgentEvent[] = [
  ev('USER_MESSAGE', { msg: { id: 'm1', name: 'user', role: 'user', content: [], metadata: {}, created_at: 't', usage: null, finished_at: 't', finished_reason: null, structured_output: null, error: null } }),
  ev('REPLY_START', { session_id: 's', reply_id: 'r1', name: 'A', role: 'assistant' }),
  ev('MODEL_CALL_START', { reply_id: 'r1', model_name: 'm' }),
  ev('TEXT_BLOCK_START', { reply_id: 'r1', block_id: 't1' }),
  ...['Hel', 'lo', ', ', 'world'].map((delta) => ev('TEXT_BLOCK_DELTA', { reply_id: 'r1', block_id: 't1', delta })),
  ev('TEXT_BLOCK_DELTA', { reply_id: 'r2', block_id: 't1', delta: ' (another reply: ignored)' }),
  ev('TEXT_BLOCK_DELTA', { reply_id: 'r1', block_id: 't1', delta: '!' }),
  ev('TEXT_BLOCK_END', { reply_id: 'r1', block_id: 't1' }),
  ev('TEXT_BLOCK_DELTA', { reply_id: 'r1', block_id: 't1', delta: ' (after the end: ignored)' }),
  ev('TOOL_CALL_START', { reply_id: 'r1', tool_call_id: 'c1', tool_call_name: 'f' }),
  ...['{"a"', ':', '1}'].map((delta) => ev('TOOL_CALL_DELTA', { reply_id: 'r1', tool_call_id: 'c1', delta })),
  ev('TOOL_CALL_END', { reply_id: 'r1', tool_call_id: 'c1' }),
  ev('MODEL_CALL_END', { reply_id: 'r1', input_tokens: 3, output_tokens: 2, cache_input_tokens: 0, cache_creation_input_tokens: 0, finished_reason: 'completed' }),
  ev('TOOL_RESULT_START', { reply_id: 'r1', tool_call_id: 'c1', tool_call_name: 'f' }),
  ...['o', 'k'].map((delta) => ev('TOOL_RESULT_TEXT_DELTA', { reply_id: 'r1', tool_call_id: 'c1', delta })),
  ev('TOOL_RESULT_END', { reply_id: 'r1', tool_call_id: 'c1', state: 'success', metadata: {} }),
  ev('MODEL_CALL_START', { reply_id: 'r1', model_name: 'm' }),
  ev('THINKING_BLOCK_START', { reply_id: 'r1', block_id: 'k1' }),
  ...['so', ' it', ' worked'].map((delta) => ev('THINKING_BLOCK_DELTA', { reply_id: 'r1', block_id: 'k1', delta })),
]

test('folding deltas in place gives the state the pure replay gives, field for field and byte for byte', () => {
  const reduce = inPlaceReducer()
  const folded = reducerRound.reduce(reduce, initialState())
  assert.equal(folded, replay(reducerRound))
  assert.is(JSON.stringify(folded), JSON.stringify(replay(reducerRound)))
  const [block] = folded.reply_msg!.content
  assert.is(block.type === 'text' && block.text, 'Hello, world!')
})

test('an unsealed state is written in place; a sealed one never is, even when frozen', () => {
  const reduce = inPlaceReducer()
  const [first, second] = reducerRound.slice(4, 6)
  const before = reducerRound.slice(0, 4).reduce(reduce, initialState())
  const afterFirst = reduce(before, first)
  assert.is(reduce(afterFirst, second), afterFirst, 'the second delta into the same block reuses the state no one saw')
  reduce.seal()
  const held = hold(afterFirst)
  const next = reducerRound.slice(6).reduce(reduce, afterFirst)
  unchanged([held])
  assert.is.not(next, afterFirst)
})

test('sealed after any one event, the held state stays as it was and the fold still equals the replay', () => {
  const expected = replay(reducerRound)
  for (let at = 0; at < reducerRound.length; at++) {
    const reduce = inPlaceReducer()
    let state = initialState()
    let held: { state: AgentState; json: string } | null = null
    for (const [i, event] of reducerRound.entries()) {
      state = reduce(state, event)
      if (i === at) {
        reduce.seal()
        held = hold(state)
      }
    }
    unchanged([held!])
    assert.equal(state, expected, `sealed after event ${at} (${reducerRound[at].type})`)
  }
})

test('a content array that immer froze (rules granted with a confirmation) is copied, not written', () => {
  const call = { type: 'tool_call' as const, id: 'c1', name: 'f', input: '{}', state: 'asking' as const, created_at: 't', finished_at: 't' }
  const confirmed: AgentEvent[] = [
    ...reducerRound.slice(0, 3),
    ev('TOOL_CALL_START', { reply_id: 'r1', tool_call_id: 'c1', tool_call_name: 'f' }),
    ev('TOOL_CALL_DELTA', { reply_id: 'r1', tool_call_id: 'c1', delta: '{}' }),
    ev('TOOL_CALL_END', { reply_id: 'r1', tool_call_id: 'c1' }),
    ev('MODEL_CALL_END', { reply_id: 'r1', input_tokens: 3, output_tokens: 2, cache_input_tokens: 0, cache_creation_input_tokens: 0, finished_reason: 'completed' }),
    ev('REQUIRE_USER_CONFIRM', { reply_id: 'r1', tool_calls: [call] }),
    ev('USER_CONFIRM_RESULT', { reply_id: 'r1', confirm_results: [{ confirmed: true, tool_call: call, rules: [{ tool_name: 'f', rule_content: null, behavior: 'allow', source: 'user' }] }] }),
    ev('TOOL_RESULT_START', { reply_id: 'r1', tool_call_id: 'c1', tool_call_name: 'f' }),
    ev('TOOL_RESULT_TEXT_DELTA', { reply_id: 'r1', tool_call_id: 'c1', delta: 'ok' }),
    ev('TOOL_RESULT_END', { reply_id: 'r1', tool_call_id: 'c1', state: 'success', metadata: {} }),
  ]
  const folded = confirmed.reduce(inPlaceReducer(), initialState())
  assert.equal(folded, replay(confirmed))
  assert.is(folded.permission_rules.length, 1)
  assert.equal(folded.reply_msg!.content.map((b) => b.type), ['tool_call', 'tool_result'])
})

test('every state a state$ subscriber received stays as it was while the reply streams on', async () => {
  const agent = streamingAgent()
  const held: { state: AgentState; json: string }[] = []
  const subscription = agent.state$.subscribe((state) => held.push(hold(state)))
  const msg = await agent.reply(UserMsg({ content: 'read it' }))
  subscription.unsubscribe()
  assert.is(msg.finished_reason, 'completed')
  assert.ok(held.length > 40, `the subscriber saw every state (${held.length})`)
  unchanged(held)
  assert.equal(held[held.length - 1].state, agent.state)
})

test('a state read with agent.state mid-stream, or received by subscribing mid-stream, stays as it was', async () => {
  const agent = streamingAgent()
  const held: { state: AgentState; json: string }[] = []
  let deltas = 0
  let events = 0
  for await (const event of agent.replyStream(UserMsg({ content: 'read it' }))) {
    if (event.type.endsWith('_DELTA')) deltas++
    if (++events % 3 === 0) held.push(hold(agent.state))
    if (events % 3 === 1) agent.state$.subscribe((state) => held.push(hold(state))).unsubscribe()
  }
  assert.ok(deltas >= 30, `deltas of every kind streamed (${deltas})`)
  assert.ok(held.length >= 20)
  unchanged(held)
})

test('with no one watching, the state after a reply of every kind of delta equals the replay of its log', async () => {
  const agent = streamingAgent()
  for await (const _ of agent.replyStream(UserMsg({ content: 'read it' }))) void _
  const types = new Set(agent.log.map((e) => e.type))
  for (const type of ['TEXT_BLOCK_DELTA', 'THINKING_BLOCK_DELTA', 'TOOL_CALL_DELTA', 'TOOL_RESULT_TEXT_DELTA']) assert.ok(types.has(type as AgentEvent['type']), type)
  assert.equal(agent.state, replay(JSON.parse(JSON.stringify(agent.log)) as AgentEvent[]))
  const reply = agent.state.context[1]
  assert.equal(reply.content.map((b) => b.type), ['thinking', 'text', 'tool_call', 'tool_result', 'text'])
  // A tool the agent ran records its streamed output as one text block, as AgentScope does.
  const result = reply.content[3]
  assert.equal(result.type === 'tool_result' && Array.isArray(result.output) && result.output.map((b) => b.type === 'text' && b.text), ['line 0\nline 1\nline 2\nline 3\nline 4\nline 5\n'])
})

test.run()
