// Issue 20: what AgentScope's own Agent does, checked on agentlog without Python. Each test states
// AgentScope's behaviour (seen on AgentScope 2.0.6 with the same scripts) and checks agentlog's
// events, context and state against it: suggested rules on asking calls, tool results as blocks,
// a cancel before any model output, unreported usage, cur_iter, data blocks from the model, and the
// order of a batch's decisions and results. (The scenarios in extra.json are the same cases for
// the differential run against AgentScope itself, which lives outside this repository.)
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { z } from 'zod'
import {
  callTool, counterClock, defineTool, ExternalExecutionResultEvent, INTERRUPTION_REMINDER, outputText, replay, say, TextBlock, ToolResultBlock,
  UserConfirmResultEvent, UserInterruptEvent, UserMsg, usage,
  type AgentEvent, type Msg, type OutputEvent, type ScriptedTurn, type Tool, type ToolCallBlock, type ToolResultBlock as ResultBlock,
} from '../../lib/index.js'
import { checkInvariants, collect, makeAgent, probe, slowTool, types } from '../helpers/fixtures.js'
import { askingTool, externalTool } from '../helpers/hitl.js'

const test = suite('conformance/agentscope')

const weather = defineTool({ name: 'get_weather', description: 'Weather', input: z.object({ city: z.string() }), concurrencySafe: true, execute: ({ city }) => `Sunny in ${city}` })
const results = (msg: Msg) => msg.content.filter((b): b is ResultBlock => b.type === 'tool_result')
const calls = (msg: Msg) => msg.content.filter((b): b is ToolCallBlock => b.type === 'tool_call')
const outputs = (msg: Msg) => results(msg).map((r) => [r.id, r.state, r.output])
const lastMsg = (agent: { state: { context: Msg[] } }) => agent.state.context.at(-1)!

/** Runs a reply, aborting it right after the `nth` event of `type` was yielded. */
const cancelAfter = async (stream: (signal: AbortSignal) => AsyncIterable<OutputEvent>, type: string, nth = 1) => {
  const controller = new AbortController()
  const events: OutputEvent[] = []
  let seen = 0
  for await (const event of stream(controller.signal)) {
    events.push(event)
    if (event.type === type && ++seen === nth) controller.abort()
  }
  return events
}

const textBlocks = (text: string) => [{ type: 'text', text }]
const shape = (output: ResultBlock['output']) => typeof output === 'string' ? output : output.map((b) => (b.type === 'text' ? { type: 'text', text: b.text } : { type: 'data', media_type: b.source.media_type }))

test('1. every tool call block carries suggested_rules: [] ; an asking call carries the allow rule AgentScope suggests, in REQUIRE_USER_CONFIRM and the context', async () => {
  const { agent } = makeAgent([callTool('c1', 'get_weather', { city: 'Paris' }), say('Sunny.'), callTool('c2', 'delete_file', { path: '/a' }), say('Deleted.'), callTool('c3', 'delete_file', { path: '/b' }), say('Again.')],
    [weather, askingTool(probe())])
  await agent.reply(UserMsg({ content: 'weather' }))
  assert.equal(calls(lastMsg(agent)).map((c) => c.suggested_rules), [[]])
  const events = await collect(agent.replyStream(UserMsg({ content: 'delete /a' })))
  const suggested = [{ tool_name: 'delete_file', rule_content: null, behavior: 'allow', source: 'suggested' }]
  const ask = events.find((e) => e.type === 'REQUIRE_USER_CONFIRM')!
  assert.equal(ask.type === 'REQUIRE_USER_CONFIRM' && ask.tool_calls.map((c) => c.suggested_rules), [suggested])
  const [waiting] = agent.state.waiting_for
  assert.equal(waiting.suggested_rules, suggested, 'the paused call in the state carries it')
  // "Always allow" grants the suggested rule: the next call of that tool runs without asking.
  await agent.approve('c2', { rules: waiting.suggested_rules })
  assert.equal(agent.state.permission_rules, suggested)
  const again = await collect(agent.replyStream(UserMsg({ content: 'delete /b' })))
  assert.not.ok(types(again).includes('REQUIRE_USER_CONFIRM'))
  checkInvariants(agent)
})

test('2. a tool the agent runs, an external result given as blocks and a tool cancelled while it ran hold text blocks; synthesized results and a string given by the caller stay strings', async () => {
  const { agent } = makeAgent([callTool('c1', 'get_weather', { city: 'Paris' }), say('Sunny.')], [weather])
  await agent.reply(UserMsg({ content: 'weather' }))
  assert.equal(shape(results(lastMsg(agent))[0].output), textBlocks('Sunny in Paris'))

  const p = probe()
  const slow = makeAgent([[...callTool('s1', 'slow', { x: 'a' })]], [slowTool(p, { ms: 5000 })])
  await cancelAfter((signal) => slow.agent.replyStream(UserMsg({ content: 'slow' }), { signal }), 'TOOL_RESULT_START')
  assert.equal(shape(results(lastMsg(slow.agent))[0].output), textBlocks(INTERRUPTION_REMINDER), 'cancelled while it ran: a block')

  const ask = makeAgent([[...callTool('d1', 'delete_file', { path: '/a' })], say('Kept it.')], [askingTool(probe())])
  await ask.agent.reply(UserMsg({ content: 'delete' }))
  await ask.agent.deny('d1')
  assert.equal(shape(results(lastMsg(ask.agent))[0].output), '<system-reminder>The execution of tool "delete_file" is denied by user!</system-reminder>')

  const parked = makeAgent([[...callTool('d1', 'delete_file', { path: '/a' })]], [askingTool(probe())])
  await parked.agent.reply(UserMsg({ content: 'delete' }))
  await collect(parked.agent.replyStream(UserInterruptEvent({ reply_id: parked.agent.state.reply_id! })))
  assert.equal(results(lastMsg(parked.agent))[0].output, INTERRUPTION_REMINDER, 'an interrupted asking call: a string')

  const args = makeAgent([[...callTool('w1', 'get_weather', { city: 'Paris' }, 2).slice(0, 1), { type: 'delay', ms: 5000 }]], [weather])
  await cancelAfter((signal) => args.agent.replyStream(UserMsg({ content: 'weather' }), { signal }), 'TOOL_CALL_DELTA')
  assert.equal(results(lastMsg(args.agent))[0].output, INTERRUPTION_REMINDER, 'a call cut while its arguments streamed: a string')

  const ext = makeAgent([[...callTool('x1', 'browser', { url: 'a' }), ...callTool('x2', 'browser', { url: 'b' })], say('Both.')], [externalTool({ safe: true })])
  await ext.agent.reply(UserMsg({ content: 'open' }))
  await collect(ext.agent.replyStream(ExternalExecutionResultEvent({ reply_id: ext.agent.state.reply_id!, execution_results: [
    ToolResultBlock({ id: 'x1', name: 'browser', output: [TextBlock('Title A')] }), ToolResultBlock({ id: 'x2', name: 'browser', output: 'Title B' }),
  ] })))
  assert.equal(results(lastMsg(ext.agent)).map((r) => shape(r.output)), [textBlocks('Title A'), 'Title B'], 'external results keep the form the caller gave')

  const submitted = makeAgent([[...callTool('x1', 'browser', { url: 'a' })]], [externalTool()])
  await submitted.agent.reply(UserMsg({ content: 'open' }))
  await collect(submitted.agent.replyStream(UserInterruptEvent({ reply_id: submitted.agent.state.reply_id! })))
  assert.equal(results(lastMsg(submitted.agent))[0].output, INTERRUPTION_REMINDER, 'an interrupted submitted call: a string')
})

test('2. the next request carries the blocks; a log written before (no TOOL_STARTED) replays with string outputs, unchanged', async () => {
  const { agent, model } = makeAgent([callTool('c1', 'get_weather', { city: 'Paris' }), say('Sunny.')], [weather])
  await agent.reply(UserMsg({ content: 'weather' }))
  const sent = results(model.requests[1].messages.at(-1)!)[0]
  assert.equal(shape(sent.output), textBlocks('Sunny in Paris'))
  assert.equal(agent.log.filter((e) => e.type === 'TOOL_STARTED').map((e) => 'tool_call_id' in e && e.tool_call_id), ['c1'])
  const before = agent.log.filter((e) => e.type !== 'TOOL_STARTED').map((e, i) => ({ ...e, metadata: { ...e.metadata, seq: i + 1 } }) as AgentEvent)
  const old = replay(before, undefined, { strict: true })
  assert.equal(outputs(old.context.at(-1)!), [['c1', 'success', 'Sunny in Paris']])
})

test('3 and 4. a reply cancelled before the model produced anything leaves no message in the context; the next request has none', async () => {
  const { agent, model } = makeAgent([[{ type: 'delay', ms: 5000 }, ...say('Hello!')], say('Hi again.')], [])
  const events = await cancelAfter((signal) => agent.replyStream(UserMsg({ content: 'Hi' }), { signal }), 'MODEL_CALL_START')
  assert.equal(types(events), ['REPLY_START', 'MODEL_CALL_START', 'MODEL_CALL_END', 'REPLY_END'])
  assert.equal(agent.state.context.map((m) => m.role), ['user'])
  assert.is(agent.state.cur_iter, 0)
  await agent.reply(UserMsg({ content: 'Are you there?' }))
  assert.equal(model.requests[1].messages.map((m) => m.role), ['system', 'user', 'user'])
  assert.equal(agent.state.context.map((m) => m.role), ['user', 'user', 'assistant'])
  assert.equal(replay(agent.log), agent.state)
})

test('4. usage never reported by an interrupted call is null, not zeros; usage reported before the cut is kept', async () => {
  const cut = makeAgent([[...say('Once '), { type: 'delay', ms: 5000 }, usage(12, 3)]], [])
  await cancelAfter((signal) => cut.agent.replyStream(UserMsg({ content: 'story' }), { signal }), 'TEXT_BLOCK_DELTA')
  assert.equal([lastMsg(cut.agent).finished_reason, lastMsg(cut.agent).usage], ['interrupted', null])
  const reported = makeAgent([[...say('Once '), usage(12, 3), ...say('upon '), { type: 'delay', ms: 5000 }]], [])
  await cancelAfter((signal) => reported.agent.replyStream(UserMsg({ content: 'story' }), { signal }), 'TEXT_BLOCK_DELTA', 2)
  assert.equal(lastMsg(reported.agent).usage, { input_tokens: 12, output_tokens: 3, cache_input_tokens: 0, cache_creation_input_tokens: 0 })
})

test('5. cur_iter counts finished rounds: not a round cut by an interrupt, nor one that the user\'s answer (a denial, an external result) finished', async () => {
  const text = makeAgent([say('Hello!')], [])
  await text.agent.reply(UserMsg({ content: 'Hi' }))
  assert.is(text.agent.state.cur_iter, 1)

  const cut = makeAgent([[...say('Once '), { type: 'delay', ms: 5000 }]], [])
  await cancelAfter((signal) => cut.agent.replyStream(UserMsg({ content: 'story' }), { signal }), 'TEXT_BLOCK_DELTA')
  assert.is(cut.agent.state.cur_iter, 0)

  const tools = makeAgent([callTool('c1', 'get_weather', { city: 'Paris' }), say('Sunny.')], [weather])
  await tools.agent.reply(UserMsg({ content: 'weather' }))
  assert.is(tools.agent.state.cur_iter, 2, 'the tool round, then the answer')

  const approved = makeAgent([callTool('d1', 'delete_file', { path: '/a' }), say('Deleted.')], [askingTool(probe())])
  await approved.agent.reply(UserMsg({ content: 'delete' }))
  assert.is(approved.agent.state.cur_iter, 0, 'parked: the round is not finished')
  await approved.agent.approve('d1')
  assert.is(approved.agent.state.cur_iter, 2, 'the agent ran the approved call: the round counts')

  const denied = makeAgent([callTool('d1', 'delete_file', { path: '/a' }), say('Kept.')], [askingTool(probe())])
  await denied.agent.reply(UserMsg({ content: 'delete' }))
  await denied.agent.deny('d1')
  assert.is(denied.agent.state.cur_iter, 1, 'the denial finished the round: only the answer counts')

  const external = makeAgent([callTool('x1', 'browser', { url: 'a' }), say('Done.')], [externalTool()])
  await external.agent.reply(UserMsg({ content: 'open' }))
  await external.agent.submitResult('x1', 'Title')
  assert.is(external.agent.state.cur_iter, 1, 'the external result finished the round: only the answer counts')
})

const RED_DOT = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC'

test('7. a data block from the model: DATA_BLOCK_START/DELTA/END, the text around it stays one block, the context and the reply keep the image', async () => {
  const image: ScriptedTurn = [...say('Here is a dot:'), { type: 'data', id: 'img-1', media_type: 'image/png', data: RED_DOT.slice(0, 40) },
    { type: 'data', id: 'img-1', media_type: 'image/png', data: RED_DOT.slice(40) }, ...say('Red.'), usage(12, 40)]
  const { agent } = makeAgent([image], [])
  const events = await collect(agent.replyStream(UserMsg({ content: 'Draw a dot.' })))
  assert.equal(types(events), ['REPLY_START', 'MODEL_CALL_START', 'TEXT_BLOCK_START', 'TEXT_BLOCK_DELTA', 'DATA_BLOCK_START', 'DATA_BLOCK_DELTA', 'DATA_BLOCK_DELTA',
    'TEXT_BLOCK_DELTA', 'TEXT_BLOCK_END', 'DATA_BLOCK_END', 'MODEL_CALL_END', 'REPLY_END'])
  const reply = lastMsg(agent)
  assert.equal(reply.content.map((b) => b.type === 'text' ? b.text : b.type === 'data' && b.source.type === 'base64' ? [b.source.media_type, b.source.data] : b.type),
    ['Here is a dot:Red.', ['image/png', RED_DOT]])
  assert.is(reply.finished_reason, 'completed')
  assert.equal(replay(agent.log, undefined, { strict: true }), agent.state)
})

test('7. a malformed data chunk ends the reply with a clear error instead of a bad log', async () => {
  const { agent } = makeAgent([[...say('x'), { type: 'data', media_type: '', data: 'AAAA' } as never]], [])
  const events = await collect(agent.replyStream(UserMsg({ content: 'Draw.' })))
  const end = events.at(-1)!
  assert.is(end.type === 'REPLY_END' && end.finished_reason, 'error')
  assert.match(end.type === 'REPLY_END' ? end.error?.message ?? '' : '', 'a data chunk whose media_type')
  checkInvariants(agent)
})

const renameTool = (name: string): Tool => defineTool({
  name, description: name, input: z.object({ path: z.string() }), permission: 'ask', concurrencySafe: true, execute: ({ path }) => `${name} ${path}`,
})

test('9. one model call that asks and starts an external call keeps call order; results stand in the order they completed in', async () => {
  const { agent } = makeAgent([[...callTool('c1', 'rename_file', { path: 'a' }), ...callTool('c2', 'browser', { url: 'x' })], say('Done.')],
    [renameTool('rename_file'), externalTool({ safe: true })])
  const first = await collect(agent.replyStream(UserMsg({ content: 'go' })))
  assert.equal(types(first).slice(-3), ['REQUIRE_USER_CONFIRM', 'TOOL_RESULT_START', 'REQUIRE_EXTERNAL_EXECUTION'])
  assert.equal(agent.state.waiting_for.map((c) => [c.id, c.state]), [['c1', 'asking'], ['c2', 'submitted']])
  await agent.approve('c1')
  await agent.submitResult('c2', 'Example')
  assert.equal(results(lastMsg(agent)).map((r) => r.id), ['c1', 'c2'], 'c1 completed first although c2 started first')
  checkInvariants(agent)
})

test('9. an ask before a run in one concurrent batch keeps call order, and the reply parks only once the run is done', async () => {
  const { agent } = makeAgent([[...callTool('c1', 'rename_file', { path: 'a' }), ...callTool('c2', 'get_weather', { city: 'Paris' })], say('Both.')],
    [renameTool('rename_file'), weather])
  const seen: [string, string][] = []
  const watching = agent.events$.subscribe((event) => seen.push([event.type, agent.state.status]))
  const events = await collect(agent.replyStream(UserMsg({ content: 'go' })))
  watching.unsubscribe()
  assert.equal(types(events).slice(-4), ['REQUIRE_USER_CONFIRM', 'TOOL_RESULT_START', 'TOOL_RESULT_TEXT_DELTA', 'TOOL_RESULT_END'])
  const ask = seen.findIndex(([type]) => type === 'REQUIRE_USER_CONFIRM')
  assert.equal(seen.slice(ask, -1).filter(([, status]) => status === 'paused'), [], 'not parked while the run of the batch is still to come')
  assert.equal(seen.at(-1), ['TOOL_RESULT_END', 'paused'])
  assert.equal([agent.state.status, agent.state.waiting_for.map((c) => c.id)], ['paused', ['c1']])
  const reply = await agent.approve('c1')
  assert.equal(results(lastMsg(agent)).map((r) => r.id), ['c2', 'c1'])
  assert.is(reply.finished_reason, 'completed')
  checkInvariants(agent)
})

test('9. a confirmation that denies some calls and approves others records the denials first, then runs the approved calls', async () => {
  const { agent } = makeAgent([[...callTool('c1', 'rename_file', { path: 'a' }), ...callTool('c2', 'chmod_file', { path: 'b' })], say('Locked b.')],
    [renameTool('rename_file'), renameTool('chmod_file')])
  await agent.reply(UserMsg({ content: 'go' }))
  const [c1, c2] = agent.state.waiting_for
  const events = await collect(agent.replyStream(UserConfirmResultEvent({ reply_id: agent.state.reply_id!, confirm_results: [{ confirmed: true, tool_call: c2 }, { confirmed: false, tool_call: c1 }] })))
  const resultEvents = events.filter((e) => e.type.startsWith('TOOL_RESULT_')).map((e) => `${e.type}:${'tool_call_id' in e ? e.tool_call_id : ''}`)
  assert.equal(resultEvents, ['TOOL_RESULT_START:c1', 'TOOL_RESULT_TEXT_DELTA:c1', 'TOOL_RESULT_END:c1', 'TOOL_RESULT_START:c2', 'TOOL_RESULT_TEXT_DELTA:c2', 'TOOL_RESULT_END:c2'])
  assert.equal(results(lastMsg(agent)).map((r) => [r.id, r.state, outputText(r.output)]), [
    ['c1', 'denied', '<system-reminder>The execution of tool "rename_file" is denied by user!</system-reminder>'], ['c2', 'success', 'chmod_file b'],
  ])
  assert.is(agent.state.cur_iter, 2)
  checkInvariants(agent)
})

test('10. runtime hints (off by default): a HINT_BLOCK with the current time before a model call when none is recent; replay reads no clock', async () => {
  const plain = makeAgent([say('Hi.')], [])
  await plain.agent.reply(UserMsg({ content: 'Hi' }))
  assert.not.ok(types(plain.agent.log).includes('HINT_BLOCK'), 'off by default')

  const { agent, model } = makeAgent([callTool('c1', 'get_weather', { city: 'Paris' }), say('Sunny.'), say('Still sunny.')], [weather],
    { runtimeHints: { timeZone: 'Asia/Tokyo' }, clock: counterClock('t', Date.UTC(2026, 6, 1, 3, 0, 0)) })
  const events = await collect(agent.replyStream(UserMsg({ content: 'weather' })))
  assert.equal(types(events).slice(0, 3), ['REPLY_START', 'HINT_BLOCK', 'MODEL_CALL_START'])
  assert.is(types(events).filter((t) => t === 'HINT_BLOCK').length, 1, 'the second model call of the reply is within the interval')
  const hint = events[1]
  assert.ok(hint.type === 'HINT_BLOCK' && hint.source === '{"label": "System", "sublabel": "Runtime State"}')
  const text = hint.type === 'HINT_BLOCK' ? outputText(hint.hint) : ''
  assert.match(text, '<current-time>2026-07-01T12:00:00</current-time>')
  assert.match(text, '<timezone>Asia/Tokyo</timezone>')
  assert.equal(model.requests[0].messages.at(-1)!.content.map((b) => b.type), ['hint'], 'the model reads it')
  assert.equal(replay(agent.log), agent.state)

  const every = makeAgent([say('A.'), say('B.')], [], { runtimeHints: { intervalHours: 0 } })
  await every.agent.reply(UserMsg({ content: '1' }))
  await every.agent.reply(UserMsg({ content: '2' }))
  assert.is(every.agent.log.filter((e) => e.type === 'HINT_BLOCK').length, 2, 'interval 0: a new time before every call')
  for (const runtimeHints of [{ timeZone: 'Mars/Olympus' }, { intervalHours: -1 }, 'yes'])
    assert.throws(() => makeAgent([], [], { runtimeHints: runtimeHints as never }), (e: unknown) => e instanceof Error && /runtimeHints/.test(e.message))
})

test.run()
