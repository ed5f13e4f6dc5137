// Bad input and failures: every refusal throws an AgentError with a code and a message that says
// what to do, and leaves the log byte for byte as it was (REFERENCE.md invariant 5); tool failures
// become error results; a model failure ends the reply with REPLY_END(error); maxIters sums up.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { z } from 'zod'
import {
  AgentError, callTool, outputText, createAgent, defineTool, ExternalExecutionResultEvent, ModelError, say, scriptedModel, ToolResultBlock,
  UserConfirmResultEvent, UserInterruptEvent, UserMsg, type Agent, type ToolResultBlock as ResultBlock,
} from '../../lib/index.js'
import { checkInvariants, collect, makeAgent, probe, slowTool, twoToolScript, types } from '../helpers/fixtures.js'
import { askingTool, externalTool } from '../helpers/hitl.js'

const test = suite('scenarios/refusals')

const refuses = async (agent: Agent, code: string, attempt: () => unknown) => {
  const before = JSON.stringify(agent.log)
  const state = agent.state
  try {
    await attempt()
    assert.unreachable(`expected ${code}`)
  } catch (error) {
    assert.instance(error, AgentError)
    assert.is((error as AgentError).code, code, (error as Error).message)
    assert.ok((error as Error).message.length > 30, 'the message explains what to do')
  }
  assert.is(JSON.stringify(agent.log), before, 'the log is unchanged')
  assert.is(agent.state, state, 'the state is unchanged')
}

const pausedOnAsk = async () => {
  const p = probe()
  const { agent } = makeAgent([[...callTool('c-1', 'delete_file', { path: 'a' }), ...callTool('x-1', 'browser', { url: 'u' })], [...say('ok')]],
    [askingTool(p, { safe: true }), externalTool({ safe: true })])
  await collect(agent.replyStream(UserMsg({ content: 'go' })))
  assert.is(agent.state.status, 'paused')
  return agent
}

test('input that is neither a message nor an input event is refused', async () => {
  const { agent } = makeAgent([[...say('hi')]], [])
  for (const bad of [null, 42, '', '  \n', [], {}, { type: 'REPLY_START' }, { role: 'user', content: 7 }, { role: 'assistant', content: 'hi' }, { type: 'USER_INTERRUPT' }])
    await refuses(agent, 'INVALID_INPUT', () => agent.replyStream(bad as never))
  await refuses(agent, 'INVALID_INPUT', () => agent.reply({ ...UserMsg({ content: 'x' }), role: 'assistant' }))
  await refuses(agent, 'INVALID_INPUT', () => agent.dispatch(7 as never))
})

test('options of the wrong type are refused', async () => {
  const { agent } = makeAgent([[...say('hi')]], [])
  await refuses(agent, 'INVALID_OPTION', () => agent.replyStream(UserMsg({ content: 'x' }), { signal: 'soon' } as never))
  await refuses(agent, 'INVALID_OPTION', () => agent.reply(UserMsg({ content: 'x' }), { rejectOnInterrupt: 'yes' } as never))
  for (const metadata of ['trace', [1], { at: new Date() }, { seq: 3 }, { session_id: 'other' }])
    await refuses(agent, 'INVALID_OPTION', () => agent.reply(UserMsg({ content: 'x' }), { metadata } as never))
  const model = scriptedModel([])
  for (const options of [{ name: '', model }, { name: 'a', model: {} }, { name: 'a', model, maxIters: 0 }, { name: 'a', model, tools: [{}] }, { name: 'a', model, sysPrompt: 3 }])
    assert.throws(() => createAgent(options as never), (e: AgentError) => e.code === 'INVALID_OPTION')
  assert.throws(() => defineTool({ name: 'bad name', description: '', input: z.object({}), execute: () => '' }), (e: AgentError) => e.code === 'INVALID_OPTION')
})

test('a second reply while one runs is refused', async () => {
  const { agent } = makeAgent(twoToolScript(), [slowTool(probe(), { ms: 30 })])
  const running = agent.reply(UserMsg({ content: 'go' }))
  await refuses(agent, 'REPLY_RUNNING', () => agent.replyStream(UserMsg({ content: 'again' })))
  await running
})

test('a new message while paused is refused, naming what to do', async () => {
  const agent = await pausedOnAsk()
  await refuses(agent, 'REPLY_PAUSED', () => agent.reply(UserMsg({ content: 'hello?' })))
})

test('a confirmation for a call that is not asking, and an external result for one not submitted, are refused', async () => {
  const agent = await pausedOnAsk()
  const reply_id = agent.state.reply_id!
  const [asking, submitted] = [...agent.state.waiting_for].sort((a, b) => a.state.localeCompare(b.state))
  await refuses(agent, 'NOT_ASKING', () => agent.replyStream(UserConfirmResultEvent({ reply_id, confirm_results: [{ confirmed: true, tool_call: submitted }] })))
  await refuses(agent, 'NOT_SUBMITTED', () => agent.replyStream(ExternalExecutionResultEvent({ reply_id, execution_results: [ToolResultBlock({ id: asking.id, name: asking.name, output: 'x' })] })))
  await refuses(agent, 'UNKNOWN_CALL', () => agent.replyStream(ExternalExecutionResultEvent({ reply_id, execution_results: [ToolResultBlock({ id: 'nope', name: 'x', output: 'x' })] })))
})

test('an input event for another reply is refused', async () => {
  const agent = await pausedOnAsk()
  await refuses(agent, 'WRONG_REPLY', () => agent.replyStream(UserInterruptEvent({ reply_id: 'some-other-reply' })))
  await refuses(agent, 'WRONG_REPLY', () => agent.replyStream(UserConfirmResultEvent({ reply_id: 'old', confirm_results: [{ confirmed: true, tool_call: agent.state.waiting_for[0] }] })))
})

test('a result for a call that is already closed is refused', async () => {
  const agent = await pausedOnAsk()
  const reply_id = agent.state.reply_id!
  const submitted = agent.state.waiting_for.find((c) => c.state === 'submitted')!
  const result = ToolResultBlock({ id: submitted.id, name: submitted.name, output: 'first' })
  await collect(agent.replyStream(ExternalExecutionResultEvent({ reply_id, execution_results: [result] })))
  assert.is(agent.state.status, 'paused', 'still waiting for the confirmation')
  await refuses(agent, 'CALL_CLOSED', () => agent.replyStream(ExternalExecutionResultEvent({ reply_id, execution_results: [{ ...result, output: 'second' }] })))
})

test('a tool that throws, invalid JSON, a schema failure and an unknown tool become error results the model sees', async () => {
  const boom = defineTool({ name: 'boom', description: '', input: z.object({ n: z.number() }), execute: () => { throw new Error('disk full') } })
  const turns = [[
    ...callTool('t-1', 'boom', { n: 1 }),
    { type: 'tool_call' as const, id: 't-2', name: 'boom', delta: '{"n": 1' },
    ...callTool('t-3', 'boom', { n: 'one' }),
    ...callTool('t-4', 'nothing', {}),
  ], [...say('I see the errors.')]]
  const { agent, model } = makeAgent(turns, [boom])
  const msg = await agent.reply(UserMsg({ content: 'go' }))
  assert.is(msg.finished_reason, 'completed')
  const results = agent.state.context[1].content.filter((b): b is ResultBlock => b.type === 'tool_result')
  assert.equal(results.map((r) => r.state), ['error', 'error', 'error', 'error'])
  const outputs = results.map((r) => outputText(r.output))
  assert.match(outputs[0], 'disk full')
  assert.match(outputs[1], 'not valid JSON')
  assert.match(outputs[2], 'n:')
  assert.match(outputs[3], 'no tool named "nothing"')
  assert.is(model.requests.length, 2, 'the loop went on')
  checkInvariants(agent)
})

test('a model failure ends the reply with REPLY_END(error), a consistent context, and reply() rejects', async () => {
  const failure = new ModelError({ type: 'rate_limit', message: 'slow down' })
  const { agent } = makeAgent([[...say('Half'), ...callTool('c-1', 'slow', { x: '1' }).slice(0, 1), { type: 'fail', error: failure }], [...say('ok')]], [slowTool(probe())])
  const events = await collect(agent.replyStream(UserMsg({ content: 'go' })))
  const end = events.at(-1)!
  assert.equal(end.type === 'REPLY_END' && [end.finished_reason, end.error], ['error', { type: 'rate_limit', message: 'slow down' }])
  assert.equal(types(events).slice(-6), ['TOOL_CALL_END', 'MODEL_CALL_END', 'TOOL_RESULT_START', 'TOOL_RESULT_TEXT_DELTA', 'TOOL_RESULT_END', 'REPLY_END'])
  checkInvariants(agent)
  const again = makeAgent([[{ type: 'fail', error: new Error('boom') }]], [])
  try {
    await again.agent.reply(UserMsg({ content: 'go' }))
    assert.unreachable()
  } catch (error) {
    assert.instance(error, ModelError)
    assert.is((error as ModelError).type, 'unknown')
  }
  checkInvariants(again.agent)
})

test('maxIters (AgentScope): after maxIters finished rounds the reply ends with EXCEED_MAX_ITERS then REPLY_END(exceed_max_iters), without another model call', async () => {
  const { agent, model } = makeAgent([
    [...callTool('c-1', 'slow', { x: '1' })], [...callTool('c-2', 'slow', { x: '2' })], [...say('never asked for')],
  ], [slowTool(probe(), { ms: 1 })], { maxIters: 2 })
  const events = await collect(agent.replyStream(UserMsg({ content: 'loop' })))
  assert.equal(types(events).slice(-3), ['TOOL_RESULT_END', 'EXCEED_MAX_ITERS', 'REPLY_END'])
  const [exceeded, end] = events.slice(-2)
  assert.equal(exceeded.type === 'EXCEED_MAX_ITERS' && [exceeded.reply_id, exceeded.name], [end.reply_id, agent.name])
  assert.is(end.type === 'REPLY_END' && end.finished_reason, 'exceed_max_iters')
  assert.is(model.requests.length, 2, 'no closing model call')
  assert.equal(agent.state.context[1].content.map((b) => b.type), ['tool_call', 'tool_result', 'tool_call', 'tool_result'])
  checkInvariants(agent)
})

test('maxIters: reply() resolves to a message saying the iterations are exceeded; a final answer in the last round completes', async () => {
  const { agent } = makeAgent([[...say('Hi.')], [...callTool('c-1', 'slow', { x: '1' })]], [slowTool(probe(), { ms: 1 })], { maxIters: 1 })
  const first = await agent.reply(UserMsg({ content: 'hello' }))
  assert.equal([first.finished_reason, first.text], ['completed', 'Hi.'])
  const second = await agent.reply(UserMsg({ content: 'loop' }))
  assert.equal([second.id, second.finished_reason, second.text], [agent.state.reply_id, 'exceed_max_iters', 'The maximum reasoning-acting iterations are exceeded.'])
  assert.not.ok(agent.state.context.some((m) => m.content.some((b) => b.type === 'text' && b.text.includes('exceeded'))), 'the notice is not in the context')
})

test('agent.dispatch starts and resumes a reply like replyStream, with the events on events$', async () => {
  const p = probe()
  const { agent } = makeAgent([[...callTool('c-1', 'delete_file', { path: 'a' })], [...say('done')]], [askingTool(p)])
  const seen: string[] = []
  agent.events$.subscribe((e) => seen.push(e.type))
  agent.dispatch(UserMsg({ content: 'go' }))
  await new Promise((r) => setTimeout(r, 20))
  assert.is(agent.state.status, 'paused')
  agent.dispatch(UserConfirmResultEvent({ reply_id: agent.state.reply_id!, confirm_results: [{ confirmed: true, tool_call: agent.state.waiting_for[0] }] }))
  await new Promise((r) => setTimeout(r, 20))
  assert.is(agent.state.status, 'idle')
  assert.equal(seen.slice(0, 2), ['USER_MESSAGE', 'REPLY_START'])
  assert.is(seen.at(-1), 'REPLY_END')
  assert.ok(seen.includes('USER_CONFIRM_RESULT'))
})

test.run()
