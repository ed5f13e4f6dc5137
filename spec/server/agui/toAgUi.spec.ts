// The AG-UI mapping of a reply's events (lib/server/agui/toAgUi.ts), run on real agents with
// scripted models: every stream passes @ag-ui/client's verifyEvents and @ag-ui/core's schemas, and
// each way a reply ends maps to the outcome of AG-UI.md's table; a tree of agents streamed with its
// descendants maps to the lead's run, a sub-agent's waiting call (at any depth) to its interrupt.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { agentTool, callTool, createAgent, say, scriptedModel, think, usage, UserConfirmResultEvent, UserMsg, type OutputEvent } from '../../../lib/index.js'
import { APPROVAL_SCHEMA, createAgUiRun, resultMessageId } from '../../../lib/server/agui/toAgUi.js'
import type { AgUiEvent } from '../../../lib/server/agui/types.js'
import { makeAgent, probe, slowTool } from '../../helpers/fixtures.js'
import { askingTool, externalTool } from '../../helpers/hitl.js'
import { aguiTypes, verify } from './helpers.js'

const test = suite('server/agui/toAgUi')

const mapAll = (events: OutputEvent[], reply_id?: string): AgUiEvent[] => {
  const run = createAgUiRun({ threadId: 'thread-1', runId: 'run-1', reply_id })
  return [...(reply_id ? run.start() : []), ...events.flatMap((e) => run.map(e)), ...run.finish()]
}

const stream = async (iterable: AsyncIterable<OutputEvent>, stopAfter?: (e: OutputEvent) => boolean, controller?: AbortController) => {
  const out: OutputEvent[] = []
  for await (const event of iterable) {
    out.push(event)
    if (stopAfter?.(event)) controller?.abort()
  }
  return out
}

test('a plain answer with thinking: RUN_STARTED, a step, a reasoning span, a text message, RUN_FINISHED with usage', async () => {
  const { agent } = makeAgent([[...think('Hmm.', 2), ...say('Hello there.', 3), usage(12, 5)]], [])
  const events = mapAll(await stream(agent.replyStream(UserMsg({ content: 'hi' }))))
  await verify(events)
  assert.equal(aguiTypes(events), [
    'RUN_STARTED', 'STEP_STARTED', 'REASONING_START', 'REASONING_MESSAGE_START', 'REASONING_MESSAGE_CONTENT', 'REASONING_MESSAGE_CONTENT',
    'REASONING_MESSAGE_END', 'REASONING_END', 'TEXT_MESSAGE_START', 'TEXT_MESSAGE_CONTENT', 'TEXT_MESSAGE_CONTENT', 'TEXT_MESSAGE_CONTENT',
    'TEXT_MESSAGE_END', 'STEP_FINISHED', 'RUN_FINISHED',
  ])
  assert.equal(events[0], { type: 'RUN_STARTED', threadId: 'thread-1', runId: 'run-1', metadata: { reply_id: agent.state.reply_id } })
  const text = agent.state.context.at(-1)!.content.find((b) => b.type === 'text')!
  assert.is(events[8].messageId, text.id, 'the text message id is the block id')
  assert.is(events.filter((e) => e.type === 'TEXT_MESSAGE_CONTENT').map((e) => e.delta).join(''), 'Hello there.')
  assert.equal(events.at(-1), { type: 'RUN_FINISHED', threadId: 'thread-1', runId: 'run-1', usage: [{ inputTokens: 12, outputTokens: 5, totalTokens: 17, cachedInputTokens: 0 }] })
})

test('tools: calls stream as TOOL_CALL_START/ARGS/END under the round\'s text message, each result is one TOOL_CALL_RESULT with its own message id', async () => {
  const p = probe()
  const { agent } = makeAgent([
    [...say('Checking.'), ...callTool('call-1', 'slow', { x: 'a' }, 2), ...callTool('call-2', 'slow', { x: 'b' })],
    [...callTool('call-3', 'slow', { x: 'c' })],
    [...say('Done.')],
  ], [slowTool(p, { ms: 1 })])
  const events = mapAll(await stream(agent.replyStream(UserMsg({ content: 'go' }))))
  await verify(events)
  const starts = events.filter((e) => e.type === 'TOOL_CALL_START')
  const text = events.find((e) => e.type === 'TEXT_MESSAGE_START')!
  assert.equal(starts.map((e) => [e.toolCallId, e.toolCallName, e.parentMessageId]), [
    ['call-1', 'slow', text.messageId], ['call-2', 'slow', text.messageId], ['call-3', 'slow', 'call-3.calls'],
  ])
  assert.is(events.filter((e) => e.type === 'TOOL_CALL_ARGS' && e.toolCallId === 'call-1').map((e) => e.delta).join(''), '{"x":"a"}')
  const results = events.filter((e) => e.type === 'TOOL_CALL_RESULT')
  assert.equal(results.map((e) => [e.toolCallId, e.messageId, e.content, e.role]), [
    ['call-1', resultMessageId('call-1'), 'slow:a', 'tool'], ['call-2', resultMessageId('call-2'), 'slow:b', 'tool'], ['call-3', resultMessageId('call-3'), 'slow:c', 'tool'],
  ])
  assert.ok(events.indexOf(results[0]) > events.findIndex((e) => e.type === 'TOOL_CALL_END' && e.toolCallId === 'call-2'), 'results come after the calls end')
})

test('an approval: the run finishes with an interrupt outcome; the resumed run repeats no TOOL_CALL_START and sends the result', async () => {
  const p = probe()
  const { agent } = makeAgent([[...say('Deleting.'), ...callTool('c-1', 'delete_file', { path: '/tmp/x' })], [...say('Deleted.')]], [askingTool(p)])
  const first = mapAll(await stream(agent.replyStream(UserMsg({ content: 'delete' }))))
  await verify(first)
  const outcome = first.at(-1)!.outcome as { type: string; interrupts: Record<string, unknown>[] }
  assert.is(first.at(-1)!.type, 'RUN_FINISHED')
  assert.is(outcome.type, 'interrupt')
  assert.equal(outcome.interrupts.map((i) => [i.id, i.reason, i.toolCallId]), [['c-1', 'tool_call', 'c-1']])
  assert.ok(typeof outcome.interrupts[0].responseSchema === 'object')

  const reply_id = agent.state.reply_id!
  const resumed = mapAll(await stream(agent.replyStream(UserConfirmResultEvent({ reply_id, confirm_results: [{ confirmed: true, tool_call: agent.state.waiting_for[0] }] }))), reply_id)
  await verify(resumed)
  assert.equal(resumed[0], { type: 'RUN_STARTED', threadId: 'thread-1', runId: 'run-1', metadata: { reply_id } })
  assert.not.ok(resumed.some((e) => e.type === 'TOOL_CALL_START'))
  assert.equal(resumed.filter((e) => e.type === 'TOOL_CALL_RESULT').map((e) => [e.toolCallId, e.content]), [['c-1', 'deleted /tmp/x']])
  assert.equal(resumed.at(-1), { type: 'RUN_FINISHED', threadId: 'thread-1', runId: 'run-1' })
})

test('a front-end (external) call: the run succeeds with pendingToolCallIds', async () => {
  const { agent } = makeAgent([[...callTool('b-1', 'browser', { url: 'https://example.org' })], [...say('Seen.')]], [externalTool()])
  const events = mapAll(await stream(agent.replyStream(UserMsg({ content: 'look' }))))
  await verify(events)
  assert.equal(events.at(-1)!.outcome, { type: 'success', pendingToolCallIds: ['b-1'] })
  assert.not.ok(events.some((e) => e.type === 'TOOL_CALL_RESULT'), 'no result yet')
})

test('stopped mid-text: the text message and the step are closed, then RUN_FINISHED{cancelled}', async () => {
  const { agent } = makeAgent([[...say('one two three four five six', 6)]], [], { modelOptions: { chunkDelayMs: 5 } })
  const controller = new AbortController()
  const out = await stream(agent.replyStream(UserMsg({ content: 'count' }), { signal: controller.signal }), (e) => e.type === 'TEXT_BLOCK_DELTA', controller)
  const events = mapAll(out)
  await verify(events)
  assert.equal(aguiTypes(events), ['RUN_STARTED', 'STEP_STARTED', 'TEXT_MESSAGE_START', 'TEXT_MESSAGE_CONTENT', 'TEXT_MESSAGE_END', 'STEP_FINISHED', 'RUN_FINISHED'])
  assert.equal(events.at(-1)!.outcome, { type: 'cancelled' })
})

test('stopped mid-tool-call: the call is closed and gets its interrupted TOOL_CALL_RESULT before RUN_FINISHED{cancelled}', async () => {
  const { agent } = makeAgent([[...callTool('c-9', 'slow', { x: 'abcdefgh' }, 5)]], [slowTool(probe())], { modelOptions: { chunkDelayMs: 5 } })
  const controller = new AbortController()
  const out = await stream(agent.replyStream(UserMsg({ content: 'go' }), { signal: controller.signal }), (e) => e.type === 'TOOL_CALL_DELTA', controller)
  const events = mapAll(out)
  await verify(events)
  assert.equal(aguiTypes(events), ['RUN_STARTED', 'STEP_STARTED', 'TOOL_CALL_START', 'TOOL_CALL_ARGS', 'TOOL_CALL_END', 'STEP_FINISHED', 'TOOL_CALL_RESULT', 'RUN_FINISHED'])
  assert.match(String(events[6].content), 'interrupted by the user')
  assert.equal(events.at(-1)!.outcome, { type: 'cancelled' })
})

test('a model error ends the run with RUN_ERROR carrying a code; max iterations too', async () => {
  const { agent } = makeAgent([[...say('Par', 1), { type: 'fail', error: Object.assign(new Error('bad key'), { status: 401 }) }]], [])
  const failed = mapAll(await stream(agent.replyStream(UserMsg({ content: 'hi' }))))
  await verify(failed)
  assert.is(failed.at(-1)!.type, 'RUN_ERROR')
  assert.match(String(failed.at(-1)!.code), /^model_/)

  const { agent: looping } = makeAgent([[...callTool('l-1', 'slow', { x: 'a' })], [...callTool('l-2', 'slow', { x: 'b' })], [...say('Summary.')]], [slowTool(probe(), { ms: 1 })], { maxIters: 1 })
  const capped = mapAll(await stream(looping.replyStream(UserMsg({ content: 'loop' }))))
  await verify(capped)
  assert.equal(capped.at(-1), { type: 'RUN_ERROR', message: 'The reply reached its maximum number of iterations.', code: 'exceed_max_iters' })
})

test('fail() before anything was sent is a lone RUN_ERROR; after, it closes what is open first', async () => {
  const refused = createAgUiRun({ threadId: 't', runId: 'r' }).fail('REPLY_PAUSED', 'paused')
  await verify(refused)
  assert.equal(refused, [{ type: 'RUN_ERROR', message: 'paused', code: 'REPLY_PAUSED' }])

  const { agent } = makeAgent([[...say('one two three', 3)]], [], { modelOptions: { chunkDelayMs: 5 } })
  const run = createAgUiRun({ threadId: 't', runId: 'r' })
  const out: AgUiEvent[] = []
  for await (const event of agent.replyStream(UserMsg({ content: 'x' }))) {
    out.push(...run.map(event))
    if (event.type === 'TEXT_BLOCK_DELTA') break
  }
  out.push(...run.fail('STORE_DOWN', 'lost'))
  await verify(out)
  assert.equal(aguiTypes(out).slice(-3), ['TEXT_MESSAGE_END', 'STEP_FINISHED', 'RUN_ERROR'])
  assert.equal(run.finish(), [], 'an ended run writes nothing more')
})

test("a tree streamed with its descendants: only the lead's events are the run's; a grandchild's asking call is the interrupt, named with its session", async () => {
  const p = probe()
  const leaf = agentTool({ name: 'dig', description: 'Digs', agent: { name: 'Leaf', tools: [askingTool(p)], model: scriptedModel([[...say('Digging. ', 2), ...callTool('d1', 'delete_file', { path: '/tmp/a' })], [...say('Dug.')]]) } })
  const mid = agentTool({ name: 'research', description: 'R', agent: { name: 'Mid', tools: [leaf], model: scriptedModel([[...say('Delegating. '), ...callTool('m1', 'dig', { task: 'dig' })], [...say('Done digging.')]]) } })
  const lead = createAgent({ name: 'Lead', tools: [mid], model: scriptedModel([[...say('On it.'), ...callTool('c1', 'research', { task: 'go' })], [...say('Finished.')]]) })
  const run = createAgUiRun({ threadId: lead.session_id, runId: 'run-1' })
  const events = [...(await stream(lead.replyStream(UserMsg({ content: 'go' }), { descendants: true }))).flatMap((e) => run.map(e)), ...run.finish()]
  await verify(events)
  assert.equal(events.filter((e) => e.type === 'TEXT_MESSAGE_CONTENT').map((e) => e.delta), ['On it.'], "the sub-agents' own text is not the lead's message")
  assert.equal(events.filter((e) => e.type === 'TOOL_CALL_START').map((e) => e.toolCallName), ['research'])
  const leafAgent = lead.children()[0].children()[0]
  assert.equal(events.at(-1)!.outcome, {
    type: 'interrupt',
    interrupts: [{ id: `${leafAgent.session_id}/d1`, reason: 'tool_call', toolCallId: 'd1', message: `Allow delete_file with {"path":"/tmp/a"}? (asked by the sub-agent of session ${leafAgent.session_id})`, responseSchema: APPROVAL_SCHEMA, metadata: { session_id: leafAgent.session_id } }],
  })
  assert.equal(p.started, [])
})

test.run()
