// Scenarios C, D and E of REFERENCE.md: parking on a confirmation, parking on an external
// execution, and USER_INTERRUPT on a parked reply; with denial, edited input, rules, partial
// confirmation, a tool that both asks and is external, and batches with several asking calls.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import {
  callTool, outputText, ExternalExecutionResultEvent, INTERRUPTION_REMINDER, say, ToolResultBlock, UserConfirmResultEvent,
  UserInterruptEvent, UserMsg, replay, type ToolCallBlock, type ToolResultBlock as ResultBlock,
} from '../../lib/index.js'
import { denialText } from '../../effects/plan.js'
import { checkInvariants, collect, makeAgent, probe, slowTool, types } from '../helpers/fixtures.js'
import { askingTool, externalTool } from '../helpers/hitl.js'

const test = suite('scenarios/hitl')
const results = (agent: { state: { context: { content: unknown[] }[] } }) =>
  (agent.state.context.at(-1)!.content as ResultBlock[]).filter((b) => b.type === 'tool_result').map((r) => [r.id, r.state, outputText(r.output)])

test('C: a call that asks parks the reply with REQUIRE_USER_CONFIRM and no REPLY_END; confirming resumes without REPLY_START', async () => {
  const p = probe()
  const { agent, model } = makeAgent([[...say('I will delete it.'), ...callTool('c-1', 'delete_file', { path: '/tmp/x' })], [...say('Deleted.')]], [askingTool(p)])
  const first = await collect(agent.replyStream(UserMsg({ content: 'delete /tmp/x' })))
  assert.equal(types(first), ['REPLY_START', 'MODEL_CALL_START', 'TEXT_BLOCK_START', 'TEXT_BLOCK_DELTA', 'TEXT_BLOCK_END',
    'TOOL_CALL_START', 'TOOL_CALL_DELTA', 'TOOL_CALL_END', 'MODEL_CALL_END', 'REQUIRE_USER_CONFIRM'])
  assert.is(agent.state.status, 'paused')
  assert.equal(agent.state.waiting_for.map((c) => [c.id, c.state]), [['c-1', 'asking']])
  const asked = first.at(-1)!
  assert.equal(asked.type === 'REQUIRE_USER_CONFIRM' && asked.tool_calls.map((c) => c.state), ['asking'])
  assert.is(p.started.length, 0)
  checkInvariants(agent)

  const reply_id = agent.state.reply_id!
  const call = agent.state.waiting_for[0]
  const second = await collect(agent.replyStream(UserConfirmResultEvent({ reply_id, confirm_results: [{ confirmed: true, tool_call: call }] })))
  assert.equal(types(second), ['TOOL_RESULT_START', 'TOOL_RESULT_TEXT_DELTA', 'TOOL_RESULT_END',
    'MODEL_CALL_START', 'TEXT_BLOCK_START', 'TEXT_BLOCK_DELTA', 'TEXT_BLOCK_END', 'MODEL_CALL_END', 'REPLY_END'])
  assert.ok(second.every((e) => e.reply_id === reply_id), 'same reply_id')
  assert.equal(results(agent), [['c-1', 'success', 'deleted /tmp/x']])
  assert.is(model.requests.length, 2)
  checkInvariants(agent)
})

test('C: a denial yields START, the denial text, END(denied), and the model sees it', async () => {
  const p = probe()
  const { agent, model } = makeAgent([[...callTool('c-1', 'delete_file', { path: '/' })], [...say('OK, I will not.')]], [askingTool(p)])
  await collect(agent.replyStream(UserMsg({ content: 'delete /' })))
  const call = agent.state.waiting_for[0]
  const events = await collect(agent.replyStream(UserConfirmResultEvent({ reply_id: agent.state.reply_id!, confirm_results: [{ confirmed: false, tool_call: call }] })))
  assert.equal(types(events).slice(0, 3), ['TOOL_RESULT_START', 'TOOL_RESULT_TEXT_DELTA', 'TOOL_RESULT_END'])
  const delta = events[1]
  assert.is(delta.type === 'TOOL_RESULT_TEXT_DELTA' && delta.delta, denialText('delete_file'))
  assert.is(delta.type === 'TOOL_RESULT_TEXT_DELTA' && delta.delta, '<system-reminder>The execution of tool "delete_file" is denied by user!</system-reminder>')
  assert.equal(results(agent), [['c-1', 'denied', denialText('delete_file')]])
  assert.is(p.started.length, 0, 'the denied tool never ran')
  const sent = model.requests[1].messages.at(-1)!.content.find((b) => b.type === 'tool_result')
  assert.is(sent && sent.type === 'tool_result' && sent.state, 'denied')
  checkInvariants(agent)
})

test('C: a confirmation may edit the input, and its rules allow later matching calls without asking', async () => {
  const p = probe()
  const { agent } = makeAgent([
    [...callTool('c-1', 'delete_file', { path: '/etc' })], [...say('Done.')],
    [...callTool('c-2', 'delete_file', { path: '/tmp/y' })], [...say('Done again.')],
  ], [askingTool(p)])
  await collect(agent.replyStream(UserMsg({ content: 'delete' })))
  const call = agent.state.waiting_for[0]
  const edited: ToolCallBlock = { ...call, input: JSON.stringify({ path: '/tmp/safe' }) }
  const rules = [{ tool_name: 'delete_file', rule_content: null, behavior: 'allow' as const, source: 'user' }]
  await collect(agent.replyStream(UserConfirmResultEvent({ reply_id: agent.state.reply_id!, confirm_results: [{ confirmed: true, tool_call: edited, rules }] })))
  assert.equal(results(agent), [['c-1', 'success', 'deleted /tmp/safe']])
  assert.equal(agent.state.permission_rules, rules)
  const next = await collect(agent.replyStream(UserMsg({ content: 'delete another' })))
  assert.not.ok(types(next).includes('REQUIRE_USER_CONFIRM'), 'the rule allowed it without asking')
  assert.equal(results(agent), [['c-2', 'success', 'deleted /tmp/y']])
  checkInvariants(agent)
})

test('C: a tool whose own permission is deny never runs: not through a rule, not by a rename in a confirmation; a call renamed to an asking tool asks again', async () => {
  const p = probe()
  const forbidden = { ...askingTool(p, { name: 'wipe_disk' }), permission: 'deny' as const }
  const { agent } = makeAgent([
    [...callTool('c-1', 'delete_file', { path: '/tmp/a' })], [...say('Done.')],
    [...callTool('c-2', 'wipe_disk', { path: '/' })], [...say('Not allowed.')],
    [...callTool('c-3', 'delete_file', { path: '/tmp/b' })], [...say('Done.')],
  ], [askingTool(p), forbidden, askingTool(p, { name: 'shred_file' })])
  await collect(agent.replyStream(UserMsg({ content: 'delete a' })))
  const renamed: ToolCallBlock = { ...agent.state.waiting_for[0], name: 'wipe_disk' }
  const rules = [{ tool_name: 'wipe_disk', rule_content: null, behavior: 'allow' as const, source: 'user' }]
  const events = await collect(agent.replyStream(UserConfirmResultEvent({ reply_id: agent.state.reply_id!, confirm_results: [{ confirmed: true, tool_call: renamed, rules }] })))
  assert.not.ok(types(events).includes('REQUIRE_USER_CONFIRM'))
  assert.equal(results(agent), [['c-1', 'denied', denialText('wipe_disk')]], 'renamed to a deny tool: denied')

  await collect(agent.replyStream(UserMsg({ content: 'wipe' })))
  assert.equal(results(agent), [['c-2', 'denied', denialText('wipe_disk')]], 'a rule allowing it does not run a deny tool')
  assert.is(p.started.length, 0, 'the deny tool never ran')

  await collect(agent.replyStream(UserMsg({ content: 'delete b' })))
  const shred: ToolCallBlock = { ...agent.state.waiting_for[0], name: 'shred_file' }
  const asked = await collect(agent.replyStream(UserConfirmResultEvent({ reply_id: agent.state.reply_id!, confirm_results: [{ confirmed: true, tool_call: shred }] })))
  assert.is(asked.at(-1)!.type, 'REQUIRE_USER_CONFIRM', 'renamed to an asking tool: it asks again')
  assert.equal(agent.state.waiting_for.map((c) => [c.id, c.name]), [['c-3', 'shred_file']])
  assert.is(p.started.length, 0)
  await collect(agent.replyStream(UserConfirmResultEvent({ reply_id: agent.state.reply_id!, confirm_results: [{ confirmed: true, tool_call: agent.state.waiting_for[0] }] })))
  assert.equal(results(agent), [['c-3', 'success', 'deleted /tmp/b']])
  assert.is(agent.state.status, 'idle')
  checkInvariants(agent)
  replay(agent.log, undefined, { strict: true })
})

test('C: a sequential batch stops at the first call that asks; a concurrent batch asks once per tool (AgentScope), and a partial confirmation parks again for the rest', async () => {
  const p = probe()
  const seq = makeAgent([[...callTool('a-1', 'delete_file', { path: '1' }), ...callTool('a-2', 'delete_file', { path: '2' })], [...say('ok')]], [askingTool(p)])
  const firstSeq = await collect(seq.agent.replyStream(UserMsg({ content: 'go' })))
  assert.is(types(firstSeq).filter((t) => t === 'REQUIRE_USER_CONFIRM').length, 1, 'only the first call asks')
  assert.equal(seq.agent.state.waiting_for.map((c) => c.id), ['a-1'])
  await collect(seq.agent.replyStream(UserConfirmResultEvent({ reply_id: seq.agent.state.reply_id!, confirm_results: [{ confirmed: true, tool_call: seq.agent.state.waiting_for[0] }] })))
  assert.equal(seq.agent.state.waiting_for.map((c) => c.id), ['a-2'], 'then the second asks')

  const con = makeAgent([[...callTool('b-1', 'rm', { path: '1' }), ...callTool('b-2', 'chmod', { path: '2' }), ...callTool('b-3', 'rm', { path: '3' })], [...say('ok')]],
    [askingTool(p, { name: 'rm', safe: true }), askingTool(p, { name: 'chmod', safe: true })])
  const asked = await collect(con.agent.replyStream(UserMsg({ content: 'go' })))
  assert.equal(con.agent.state.waiting_for.map((c) => c.id), ['b-1', 'b-2'], 'b-3 waits: the rule b-1 suggests (rm, any input) would cover it')
  assert.is(types(asked).filter((t) => t === 'REQUIRE_USER_CONFIRM').length, 2)
  const [b1, b2] = con.agent.state.waiting_for
  const reply_id = con.agent.state.reply_id!
  const partial = await collect(con.agent.replyStream(UserConfirmResultEvent({ reply_id, confirm_results: [{ confirmed: true, tool_call: b1 }] })))
  assert.not.ok(types(partial).includes('REQUIRE_USER_CONFIRM'), 'b-3 still waits while b-2 is asking')
  assert.equal(con.agent.state.waiting_for.map((c) => c.id), ['b-2'])
  assert.is(con.agent.state.cur_iter, 0, 'a round counts once every call of it has a result')
  const denied = await collect(con.agent.replyStream(UserConfirmResultEvent({ reply_id, confirm_results: [{ confirmed: false, tool_call: b2 }] })))
  assert.equal(types(denied).filter((t) => t !== 'USER_CONFIRM_RESULT'), ['TOOL_RESULT_START', 'TOOL_RESULT_TEXT_DELTA', 'TOOL_RESULT_END', 'REQUIRE_USER_CONFIRM'], 'the denial first, then b-3 asks')
  const [b3] = con.agent.state.waiting_for
  assert.is(b3.id, 'b-3', 'now b-3 asks')
  await collect(con.agent.replyStream(UserConfirmResultEvent({ reply_id, confirm_results: [{ confirmed: true, tool_call: b3 }] })))
  assert.equal(results(con.agent).map(([id, state]) => `${id}:${state}`), ['b-1:success', 'b-2:denied', 'b-3:success'])
  assert.is(con.agent.state.cur_iter, 2, 'the round the agent finished by running b-3, then the answer')
  assert.is(con.agent.state.status, 'idle')
  checkInvariants(con.agent)
})

test('D: an external call yields TOOL_RESULT_START then REQUIRE_EXTERNAL_EXECUTION; the result resumes with no second START', async () => {
  const { agent } = makeAgent([[...callTool('x-1', 'browser', { url: 'https://a.example' })], [...say('The page says hi.')]], [externalTool()])
  const first = await collect(agent.replyStream(UserMsg({ content: 'open it' })))
  assert.equal(types(first).slice(-3), ['MODEL_CALL_END', 'TOOL_RESULT_START', 'REQUIRE_EXTERNAL_EXECUTION'])
  assert.equal(agent.state.waiting_for.map((c) => [c.id, c.state]), [['x-1', 'submitted']])
  const result = ToolResultBlock({ id: 'x-1', name: 'browser', output: 'hi', metadata: { ms: 12 } })
  const second = await collect(agent.replyStream(ExternalExecutionResultEvent({ reply_id: agent.state.reply_id!, execution_results: [result] })))
  assert.equal(types(second), ['TOOL_RESULT_TEXT_DELTA', 'TOOL_RESULT_END', 'MODEL_CALL_START', 'TEXT_BLOCK_START', 'TEXT_BLOCK_DELTA', 'TEXT_BLOCK_END', 'MODEL_CALL_END', 'REPLY_END'])
  const block = agent.state.context.at(-1)!.content.find((b): b is ResultBlock => b.type === 'tool_result')!
  assert.equal([block.output, block.state, block.metadata], ['hi', 'success', { ms: 12 }])
  checkInvariants(agent)
})

test('a tool that both asks and is external: first the confirmation, then the external request', async () => {
  const { agent } = makeAgent([[...callTool('x-1', 'browser', { url: 'u' })], [...say('ok')]], [externalTool({ ask: true })])
  const first = await collect(agent.replyStream(UserMsg({ content: 'go' })))
  assert.is(types(first).at(-1), 'REQUIRE_USER_CONFIRM')
  const second = await collect(agent.replyStream(UserConfirmResultEvent({ reply_id: agent.state.reply_id!, confirm_results: [{ confirmed: true, tool_call: agent.state.waiting_for[0] }] })))
  assert.equal(types(second), ['TOOL_RESULT_START', 'REQUIRE_EXTERNAL_EXECUTION'])
  const third = await collect(agent.replyStream(ExternalExecutionResultEvent({ reply_id: agent.state.reply_id!, execution_results: [ToolResultBlock({ id: 'x-1', name: 'browser', output: 'done', state: 'error' })] })))
  assert.equal(types(third).slice(0, 2), ['TOOL_RESULT_TEXT_DELTA', 'TOOL_RESULT_END'])
  assert.equal(results(agent), [['x-1', 'error', 'done']])
  checkInvariants(agent)
})

test('E: USER_INTERRUPT on a parked reply closes every open call as interrupted (START only where none yet), then REPLY_END', async () => {
  const p = probe()
  const { agent, model } = makeAgent([[...callTool('x-1', 'browser', { url: 'u' }, 1), ...callTool('c-1', 'rm', { path: 'p' })], [...say('next')]],
    [externalTool({ safe: true }), askingTool(p, { name: 'rm', safe: true })])
  await collect(agent.replyStream(UserMsg({ content: 'go' })))
  assert.equal(agent.state.waiting_for.map((c) => c.state).sort(), ['asking', 'submitted'])
  const events = await collect(agent.replyStream(UserInterruptEvent({ reply_id: agent.state.reply_id! })))
  assert.equal(types(events), ['TOOL_RESULT_TEXT_DELTA', 'TOOL_RESULT_END', 'TOOL_RESULT_START', 'TOOL_RESULT_TEXT_DELTA', 'TOOL_RESULT_END', 'REPLY_END'])
  assert.equal(results(agent), [['x-1', 'interrupted', INTERRUPTION_REMINDER], ['c-1', 'interrupted', INTERRUPTION_REMINDER]])
  assert.is(model.requests.length, 1, 'no reasoning happens')
  assert.is(agent.log.filter((e) => e.type === 'TOOL_RESULT_START').length, 2, 'exactly one TOOL_RESULT_START per call over the whole reply')
  checkInvariants(agent)
  const next = await agent.reply(UserMsg({ content: 'hello' }))
  assert.is(next.finished_reason, 'completed')
})

test('E: USER_INTERRUPT on an agent that is not paused is a no-op: nothing yielded, nothing appended', async () => {
  const { agent } = makeAgent([[...say('hi')]], [])
  await agent.reply(UserMsg({ content: 'hi' }))
  const before = JSON.stringify(agent.log)
  const events = await collect(agent.replyStream(UserInterruptEvent({ reply_id: agent.state.reply_id! })))
  assert.equal(events, [])
  assert.is(JSON.stringify(agent.log), before)
})

test('a cancel while one call runs and others ask or are submitted: the running result first, all interrupted, one START each', async () => {
  const p = probe()
  const { agent } = makeAgent([[...callTool('r-1', 'slow', { x: '1' }), ...callTool('x-1', 'browser', { url: 'u' }), ...callTool('c-1', 'rm', { path: 'p' })]],
    [slowTool(p, { ms: 10_000, safe: true }), externalTool({ safe: true }), askingTool(p, { name: 'rm', safe: true })])
  const events = []
  for await (const event of agent.replyStream(UserMsg({ content: 'go' }))) {
    events.push(event)
    if (event.type === 'REQUIRE_USER_CONFIRM') await agent.interrupt()
  }
  const closing = events.slice(events.findIndex((e) => e.type === 'REQUIRE_USER_CONFIRM') + 1)
  assert.equal(closing.map((e) => `${e.type}${'tool_call_id' in e ? `:${e.tool_call_id}` : ''}`), [
    'TOOL_RESULT_TEXT_DELTA:r-1', 'TOOL_RESULT_END:r-1',
    'TOOL_RESULT_TEXT_DELTA:x-1', 'TOOL_RESULT_END:x-1',
    'TOOL_RESULT_START:c-1', 'TOOL_RESULT_TEXT_DELTA:c-1', 'TOOL_RESULT_END:c-1', 'REPLY_END',
  ])
  for (const id of ['r-1', 'x-1', 'c-1']) assert.is(agent.log.filter((e) => e.type === 'TOOL_RESULT_START' && e.tool_call_id === id).length, 1)
  assert.equal(p.aborted, ['r-1'])
  checkInvariants(agent)
})

test('USER_INTERRUPT at every paused point of a multi-call reply, then a new message completes; replay equals the state', async () => {
  const script = () => [
    [...callTool('a-1', 'delete_file', { path: '1' }), ...callTool('x-1', 'browser', { url: 'u' }), ...callTool('a-2', 'delete_file', { path: '2' })],
    [...say('finished')], [...say('hello')],
  ]
  for (let pauseToInterrupt = 0; pauseToInterrupt < 3; pauseToInterrupt++) {
    const p = probe()
    const { agent } = makeAgent(script(), [askingTool(p), externalTool()])
    await collect(agent.replyStream(UserMsg({ content: 'go' })))
    for (let pause = 0; pause < pauseToInterrupt; pause++) {
      const [call] = agent.state.waiting_for
      const reply_id = agent.state.reply_id!
      const answer = call.state === 'asking'
        ? UserConfirmResultEvent({ reply_id, confirm_results: [{ confirmed: true, tool_call: call }] })
        : ExternalExecutionResultEvent({ reply_id, execution_results: [ToolResultBlock({ id: call.id, name: call.name, output: 'ok' })] })
      await collect(agent.replyStream(answer))
      checkInvariants(agent)
    }
    assert.is(agent.state.status, 'paused', `paused at point ${pauseToInterrupt}`)
    const events = await collect(agent.replyStream(UserInterruptEvent({ reply_id: agent.state.reply_id! })))
    assert.is(events.at(-1)!.type, 'REPLY_END')
    checkInvariants(agent)
    assert.equal(results(agent).map(([, state]) => state).filter((s) => s === 'interrupted').length, 3 - pauseToInterrupt)
    const next = await agent.reply(UserMsg({ content: 'hi' }))
    assert.is(next.finished_reason, 'completed')
    checkInvariants(agent)
  }
})

test('two asking calls of one batch answered in one input, the first confirmed and the second denied: the denial\'s result comes whole first, then the run\'s (AgentScope\'s order)', async () => {
  const p = probe()
  const { agent } = makeAgent([
    [...callTool('c-1', 'rename_file', { path: 'a' }), ...callTool('c-2', 'chmod_file', { path: 'b' })], [...say('Renamed a only.')],
  ], [askingTool(p, { name: 'rename_file', safe: true }), askingTool(p, { name: 'chmod_file', safe: true })])
  await agent.reply(UserMsg({ content: 'Tidy up.' }))
  assert.equal(agent.state.waiting_for.map((c) => c.id), ['c-1', 'c-2'])
  const [one, two] = agent.state.waiting_for
  const events = await collect(agent.replyStream(UserConfirmResultEvent({ reply_id: agent.state.reply_id!, confirm_results: [
    { confirmed: true, tool_call: one, rules: null }, { confirmed: false, tool_call: two, rules: null },
  ] })))
  const results = events.filter((e) => e.type.startsWith('TOOL_RESULT_')).map((e) => `${e.type.slice(12)}:${(e as { tool_call_id: string }).tool_call_id}`)
  assert.equal(results, ['START:c-2', 'TEXT_DELTA:c-2', 'END:c-2', 'START:c-1', 'TEXT_DELTA:c-1', 'END:c-1'])
  assert.equal(p.started.map((s) => s.id), ['c-1'])
  checkInvariants(agent)
})

test.run()
