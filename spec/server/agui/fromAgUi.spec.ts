// RunAgentInput read against the session (lib/server/agui/fromAgUi.ts): only new messages are
// appended, a contradicting history is refused, resume answers interrupts, tool messages answer
// front-end calls; every refusal is a coded AgentError.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { AgentError, callTool, say, UserMsg } from '../../../lib/index.js'
import { parseRunInput, planRun, type RunPlan } from '../../../lib/server/agui/fromAgUi.js'
import { resultMessageId } from '../../../lib/server/agui/toAgUi.js'
import type { AgUiMessage, RunAgentInput } from '../../../lib/server/agui/types.js'
import { collect, makeAgent, probe } from '../../helpers/fixtures.js'
import { askingTool, externalTool } from '../../helpers/hitl.js'

const test = suite('server/agui/fromAgUi')
const run = (messages: AgUiMessage[], extra: Partial<RunAgentInput> = {}): RunAgentInput => ({ threadId: 't', runId: 'r', messages, ...extra })
// The planned input as plain JSON (a Msg or an input event), for field checks.
const inputOf = (plan: RunPlan): any => (plan.kind === 'input' ? plan.input : null)
const refusal = (fn: () => unknown): string => {
  try {
    fn()
  } catch (error) {
    assert.instance(error, AgentError)
    return (error as AgentError).code
  }
  throw new Error('expected a refusal')
}

test('a first run appends its user message under the client\'s id', () => {
  const { agent } = makeAgent([], [])
  const plan = planRun(agent.state, run([{ id: 'u-1', role: 'user', content: 'hello' }]))
  assert.is(plan.kind, 'input')
  const input = inputOf(plan)
  assert.is(input.role, 'user')
  assert.is(input.id, 'u-1')
  assert.equal(input.content.map((b: { text: string }) => b.text), ['hello'])
})

test('the whole conversation sent back appends only the new message; the same history twice has nothing new', async () => {
  const { agent } = makeAgent([[...say('Hi!')], [...say('Again.')]], [])
  await agent.reply({ ...UserMsg({ content: 'hello' }), id: 'u-1' })
  const text = agent.state.context[1].content[0]
  const history: AgUiMessage[] = [{ id: 'u-1', role: 'user', content: 'hello' }, { id: text.id, role: 'assistant', content: 'Hi!' }]
  const plan = planRun(agent.state, run([...history, { id: 'u-2', role: 'user', content: 'more' }]))
  assert.is(inputOf(plan).id, 'u-2')
  assert.is(refusal(() => planRun(agent.state, run(history))), 'INVALID_INPUT')
})

test('a history that contradicts the log is refused with LOG_CONFLICT', async () => {
  const { agent } = makeAgent([[...say('Hi!')]], [])
  await agent.reply({ ...UserMsg({ content: 'hello' }), id: 'u-1' })
  const text = agent.state.context[1].content[0]
  assert.is(refusal(() => planRun(agent.state, run([{ id: 'u-1', role: 'user', content: 'HELLO' }, { id: 'u-2', role: 'user', content: 'x' }]))), 'LOG_CONFLICT')
  assert.is(refusal(() => planRun(agent.state, run([{ id: 'u-0', role: 'user', content: 'inserted' }, { id: 'u-1', role: 'user', content: 'hello' }]))), 'LOG_CONFLICT')
  assert.is(refusal(() => planRun(agent.state, run([{ id: 'u-1', role: 'user', content: 'hello' }, { id: 'a-x', role: 'assistant', content: 'I never said this' }]))), 'LOG_CONFLICT')
  assert.is(refusal(() => planRun(agent.state, run([{ id: text.id, role: 'user', content: 'Hi!' }, { id: 'u-2', role: 'user', content: 'x' }]))), 'LOG_CONFLICT')
})

test('pending interrupts refuse new input; resume must answer each exactly once; approve, edit, deny, cancel all', async () => {
  // Two asking tools: calls of one tool in a batch ask one at a time (AgentScope).
  const { agent } = makeAgent([[...callTool('c-1', 'delete_file', { path: '/a' }), ...callTool('c-2', 'remove_file', { path: '/b' })]],
    [askingTool(probe(), { safe: true }), askingTool(probe(), { name: 'remove_file', safe: true })])
  await collect(agent.replyStream(UserMsg({ content: 'delete' })))
  const reply_id = agent.state.reply_id
  assert.is(refusal(() => planRun(agent.state, run([{ id: 'u-9', role: 'user', content: 'other' }]))), 'REPLY_PAUSED')
  assert.is(refusal(() => planRun(agent.state, run([], { resume: [{ interruptId: 'c-1', status: 'resolved', payload: { approved: true } }] }))), 'INVALID_INPUT')

  const plan = planRun(agent.state, run([], { resume: [
    { interruptId: 'c-1', status: 'resolved', payload: { approved: true, editedArgs: { path: '/edited' } } },
    { interruptId: 'c-2', status: 'resolved', payload: { approved: false } },
  ] }))
  const confirm = inputOf(plan)
  assert.is(confirm.type, 'USER_CONFIRM_RESULT')
  assert.is(confirm.reply_id, reply_id)
  assert.equal(confirm.confirm_results.map((r: { tool_call: { id: string; input: string }; confirmed: boolean }) => [r.tool_call.id, r.confirmed, r.tool_call.input]), [['c-1', true, '{"path":"/edited"}'], ['c-2', false, '{"path":"/b"}']])

  const cancel = planRun(agent.state, run([], { resume: [{ interruptId: 'c-1', status: 'cancelled' }, { interruptId: 'c-2', status: 'cancelled' }] }))
  assert.is(inputOf(cancel).type, 'USER_INTERRUPT')

  agent.dispatch(confirm)
  await new Promise((resolve) => setTimeout(resolve, 20))
  const again = planRun(agent.state, run([], { resume: [{ interruptId: 'c-1', status: 'resolved', payload: { approved: true } }, { interruptId: 'c-2', status: 'resolved', payload: { approved: false } }] }))
  assert.equal(again, { kind: 'none', reply_id }, 'a repeated resume is a no-op')
})

test('tool messages answer the front-end calls the reply waits for; the result is not appended twice later', async () => {
  const { agent } = makeAgent([[...callTool('b-1', 'browser', { url: 'u' })], [...say('Seen.')]], [externalTool()])
  await collect(agent.replyStream({ ...UserMsg({ content: 'look' }), id: 'u-1' }))
  const history: AgUiMessage[] = [
    { id: 'u-1', role: 'user', content: 'look' },
    { id: 'b-1.calls', role: 'assistant', toolCalls: [{ id: 'b-1', type: 'function', function: { name: 'browser', arguments: '{"url":"u"}' } }] },
    { id: 'front-1', role: 'tool', toolCallId: 'b-1', content: 'page text' },
  ]
  assert.is(refusal(() => planRun(agent.state, run([...history.slice(0, 2), { id: 'front-1', role: 'tool', toolCallId: 'zz', content: 'x' }]))), 'UNKNOWN_CALL')
  const plan = planRun(agent.state, run(history))
  const answer = inputOf(plan)
  assert.is(answer.type, 'EXTERNAL_EXECUTION_RESULT')
  assert.equal(plan.kind === 'input' && plan.externalCallIds, ['b-1'])
  assert.equal(answer.execution_results.map((r: { id: string; output: unknown; state: string }) => [r.id, r.output, r.state]), [['b-1', 'page text', 'success']])
  await collect(agent.replyStream(answer))
  assert.is(agent.state.status, 'idle')
  const next = planRun(agent.state, run([...history, { id: resultMessageId('b-1'), role: 'tool', toolCallId: 'b-1', content: 'page text' }, { id: 'u-2', role: 'user', content: 'thanks' }]))
  assert.is(inputOf(next).id, 'u-2')
})

test('parseRunInput refuses a body that is not a RunAgentInput, naming the field', () => {
  assert.is(refusal(() => parseRunInput({ threadId: 't', messages: [] })), 'INVALID_INPUT')
  assert.is(refusal(() => parseRunInput({ threadId: 't', runId: 'r', messages: [{ id: 'x', role: 'robot' }] })), 'INVALID_INPUT')
  assert.is(parseRunInput({ threadId: 't', runId: 'r', messages: [], extra: 1 }).runId, 'r')
})

test.run()
