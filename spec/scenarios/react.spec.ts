// Scenarios A, B, F and G of REFERENCE.md section 4: the full list of event types and the final
// context of a text-only reply, a ReAct round with sequential and with concurrent tools, a cancel
// while a tool runs, and a cancel while the model streams.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { callTool, outputText, INTERRUPTION_REMINDER, say, think, usage, UserMsg, type ToolResultBlock } from '../../lib/index.js'
import { sleep } from '../../lib/core/abort.js'
import { checkInvariants, collect, makeAgent, probe, slowTool, twoToolScript, types } from '../helpers/fixtures.js'

const test = suite('scenarios/react')

test('A: a text-only reply yields REPLY_START, one model call with one text block, REPLY_END(completed)', async () => {
  const { agent } = makeAgent([[...think('Hmm.', 2), ...say('Hello there!', 3), usage(5, 3)]], [])
  const events = await collect(agent.replyStream(UserMsg({ content: 'hi' })))
  assert.equal(types(events), [
    'REPLY_START', 'MODEL_CALL_START',
    'THINKING_BLOCK_START', 'THINKING_BLOCK_DELTA', 'THINKING_BLOCK_DELTA', 'THINKING_BLOCK_END',
    'TEXT_BLOCK_START', 'TEXT_BLOCK_DELTA', 'TEXT_BLOCK_DELTA', 'TEXT_BLOCK_DELTA', 'TEXT_BLOCK_END',
    'MODEL_CALL_END', 'REPLY_END',
  ])
  const end = events.at(-1)!
  assert.is(end.type === 'REPLY_END' && end.finished_reason, 'completed')
  const [user, reply] = agent.state.context
  assert.is(user.role, 'user')
  assert.is(reply.id, events[0].type === 'REPLY_START' ? events[0].reply_id : '')
  assert.equal(reply.content.map((b) => [b.type, b.type === 'text' ? b.text : b.type === 'thinking' ? b.thinking : '']), [['thinking', 'Hmm.'], ['text', 'Hello there!']])
  assert.equal(reply.usage, { input_tokens: 5, output_tokens: 3, cache_input_tokens: 0, cache_creation_input_tokens: 0 })
  assert.is(reply.finished_reason, 'completed')
  assert.is(agent.state.status, 'idle')
  checkInvariants(agent)
})

const roundTypes = [
  'REPLY_START', 'MODEL_CALL_START', 'TEXT_BLOCK_START', 'TEXT_BLOCK_DELTA', 'TEXT_BLOCK_DELTA', 'TEXT_BLOCK_DELTA', 'TEXT_BLOCK_END',
  // Every call of a model call stays open until the model call ends (fragments may alternate).
  'TOOL_CALL_START', 'TOOL_CALL_DELTA', 'TOOL_CALL_DELTA', 'TOOL_CALL_DELTA',
  'TOOL_CALL_START', 'TOOL_CALL_DELTA', 'TOOL_CALL_DELTA', 'TOOL_CALL_END', 'TOOL_CALL_END', 'MODEL_CALL_END',
]
const secondCall = ['MODEL_CALL_START', 'TEXT_BLOCK_START', 'TEXT_BLOCK_DELTA', 'TEXT_BLOCK_DELTA', 'TEXT_BLOCK_DELTA', 'TEXT_BLOCK_END', 'MODEL_CALL_END', 'REPLY_END']

test('B: tools that are not concurrency-safe run one after another, each result group whole', async () => {
  const p = probe()
  const { agent, model } = makeAgent(twoToolScript(), [slowTool(p, { ms: 5 })])
  const events = await collect(agent.replyStream(UserMsg({ content: 'go' })))
  assert.equal(types(events), [...roundTypes,
    'TOOL_RESULT_START', 'TOOL_RESULT_TEXT_DELTA', 'TOOL_RESULT_END', 'TOOL_RESULT_START', 'TOOL_RESULT_TEXT_DELTA', 'TOOL_RESULT_END', ...secondCall])
  assert.equal(p.timeline, ['start:call-1', 'end:call-1', 'start:call-2', 'end:call-2'], 'the second tool starts after the first ended')
  const reply = agent.state.context[1]
  assert.equal(reply.content.map((b) => b.type), ['text', 'tool_call', 'tool_call', 'tool_result', 'tool_result', 'text'])
  assert.equal(reply.content.filter((b): b is ToolResultBlock => b.type === 'tool_result').map((r) => [r.id, outputText(r.output), r.state]), [['call-1', 'slow:a', 'success'], ['call-2', 'slow:b', 'success']])
  assert.is(agent.state.cur_iter, 2)
  // The second model call saw the system prompt, the user message and the reply so far.
  const sent = model.requests[1].messages
  assert.equal(sent.map((m) => m.role), ['system', 'user', 'assistant'])
  assert.is(sent[2].content.filter((b) => b.type === 'tool_result').length, 2)
  checkInvariants(agent)
})

test('B: concurrency-safe tools run together and their results interleave in completion order', async () => {
  const p = probe()
  const turns = [
    [...callTool('call-1', 'slow', { x: 'a' }), ...callTool('call-2', 'fast', { x: 'b' })],
    [...say('Done.')],
  ]
  const { agent } = makeAgent(turns, [slowTool(p, { name: 'slow', ms: 30, safe: true }), slowTool(p, { name: 'fast', ms: 1, safe: true })])
  const events = await collect(agent.replyStream(UserMsg({ content: 'go' })))
  const results = events.filter((e) => e.type.startsWith('TOOL_RESULT')).map((e) => `${e.type}:${'tool_call_id' in e ? e.tool_call_id : ''}`)
  assert.equal(results, [
    'TOOL_RESULT_START:call-1', 'TOOL_RESULT_START:call-2',
    'TOOL_RESULT_TEXT_DELTA:call-2', 'TOOL_RESULT_END:call-2',
    'TOOL_RESULT_TEXT_DELTA:call-1', 'TOOL_RESULT_END:call-1',
  ])
  assert.equal(p.timeline, ['start:call-1', 'start:call-2', 'end:call-2', 'end:call-1'], 'both started at once')
  checkInvariants(agent)
})

test('F: a cancel while a tool runs aborts its signal, keeps the reply consistent and ends it at once', async () => {
  const p = probe()
  const { agent } = makeAgent(twoToolScript(), [slowTool(p, { ms: 300, ignoreSignal: true })])
  const controller = new AbortController()
  const started = Date.now()
  const stream = agent.replyStream(UserMsg({ content: 'go' }), { signal: controller.signal })
  const events = []
  for await (const event of stream) {
    events.push(event)
    if (event.type === 'TOOL_RESULT_START') controller.abort()
  }
  assert.ok(Date.now() - started < 200, 'did not wait for the tool that ignores its signal')
  assert.equal(types(events), [...roundTypes,
    'TOOL_RESULT_START', 'TOOL_RESULT_TEXT_DELTA', 'TOOL_RESULT_END',
    'TOOL_RESULT_START', 'TOOL_RESULT_TEXT_DELTA', 'TOOL_RESULT_END', 'REPLY_END'])
  assert.equal(p.aborted, ['call-1'])
  const reply = agent.state.context[1]
  assert.is(reply.finished_reason, 'interrupted')
  const results = reply.content.filter((b): b is ToolResultBlock => b.type === 'tool_result')
  assert.equal(results.map((r) => [r.id, r.state, outputText(r.output)]), [['call-1', 'interrupted', INTERRUPTION_REMINDER], ['call-2', 'interrupted', INTERRUPTION_REMINDER]])
  assert.is(p.started.length, 1, 'the second tool never started')
  checkInvariants(agent)
  const settled = agent.state
  const logLength = agent.log.length
  await sleep(350)
  assert.equal(p.finished, ['call-1'], 'the tool that ignored its signal ran on in the background')
  assert.is(agent.state, settled, 'its late result changed nothing')
  assert.is(agent.log.length, logLength)
})

test('F: a streaming tool keeps its partial output before the reminder', async () => {
  const { defineTool } = await import('../../lib/index.js')
  const { z } = await import('zod')
  const streamer = defineTool({
    name: 'stream', description: 'streams', input: z.object({}),
    async *execute(_input, { signal }) {
      yield 'part one; '
      await sleep(10_000, signal)
      yield 'never'
    },
  })
  const { agent } = makeAgent([[...callTool('s-1', 'stream', {})]], [streamer])
  for await (const event of agent.replyStream(UserMsg({ content: 'go' }))) {
    if (event.type === 'TOOL_RESULT_TEXT_DELTA') await agent.interrupt()
  }
  const result = agent.state.context[1].content.find((b): b is ToolResultBlock => b.type === 'tool_result')!
  assert.is(outputText(result.output), `part one; ${INTERRUPTION_REMINDER}`)
  assert.is(result.state, 'interrupted')
  checkInvariants(agent)
})

test('G: a cancel while the model streams keeps partial text and tool JSON, closes blocks, keeps usage', async () => {
  const turn = [usage(40, 0), ...say('Partial answ', 1), ...callTool('call-1', 'slow', { x: 'abc' }, 4).slice(0, 2), { type: 'delay' as const, ms: 10_000 }]
  const { agent } = makeAgent([turn, [...say('Fine.')]], [slowTool(probe())])
  const events = []
  for await (const event of agent.replyStream(UserMsg({ content: 'go' }))) {
    events.push(event)
    if (event.type === 'TOOL_CALL_DELTA' && events.filter((e) => e.type === 'TOOL_CALL_DELTA').length === 2) await agent.interrupt()
  }
  assert.equal(types(events), [
    'REPLY_START', 'MODEL_CALL_START', 'TEXT_BLOCK_START', 'TEXT_BLOCK_DELTA', 'TEXT_BLOCK_END',
    'TOOL_CALL_START', 'TOOL_CALL_DELTA', 'TOOL_CALL_DELTA', 'TOOL_CALL_END', 'MODEL_CALL_END',
    'TOOL_RESULT_START', 'TOOL_RESULT_TEXT_DELTA', 'TOOL_RESULT_END', 'REPLY_END',
  ])
  const modelEnd = events.find((e) => e.type === 'MODEL_CALL_END')!
  assert.is(modelEnd.type === 'MODEL_CALL_END' && modelEnd.finished_reason, 'interrupted')
  assert.is(modelEnd.type === 'MODEL_CALL_END' && modelEnd.input_tokens, 40)
  assert.is(agent.state.usage.input_tokens, 40, 'usage recorded before the interrupt is kept')
  const reply = agent.state.context[1]
  const call = reply.content.find((b) => b.type === 'tool_call')!
  assert.is(call.type === 'tool_call' && call.input, '{"x":"abc"}'.slice(0, 6), 'the raw partial JSON stays in the context')
  assert.is(reply.content[0].type === 'text' && reply.content[0].text, 'Partial answ')
  checkInvariants(agent)
  const next = await agent.reply(UserMsg({ content: 'again' }))
  assert.is(next.finished_reason, 'completed')
})

test.run()
