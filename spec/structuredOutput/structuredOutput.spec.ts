// Structured output (issue 14, part 2): `reply(input, { output })` ends with a value of the schema
// through the built-in `generate_response` tool; a value that fails validation is an error result
// the model corrects; at maxIters the tool is forced; no value when interrupted or out of iterations;
// REPLY_START records the schema, so a paused reply resumed in another process asks for the same value.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { z } from 'zod'
import {
  AgentError, callTool, checkLog, counterClock, createAgent, defineTool, memoryLog, protocolProblems, say, scriptedModel, UserMsg, usage,
  type AgentEvent, type ScriptedTurn, type ToolResultBlock,
} from '../../lib/index.js'
import { checkInvariants, makeAgent, probe, slowTool, types } from '../helpers/fixtures.js'

const test = suite('structuredOutput')
const Weather = z.object({ city: z.string(), celsius: z.number() })
const respond = (id: string, input: unknown) => callTool(id, 'generate_response', input, 3)
const results = (msg: { content: { type: string }[] }) => msg.content.filter((b): b is ToolResultBlock => b.type === 'tool_result')

test('a valid generate_response call ends the reply: the message carries the value and reply() resolves with it', async () => {
  const { agent, model } = makeAgent([[...say('Looking it up.'), ...respond('r1', { city: 'Oslo', celsius: 4 }), usage(10, 5)]], [])
  const msg = await agent.reply(UserMsg({ content: 'Weather in Oslo?' }), { output: Weather })
  const value: { city: string; celsius: number } | null = msg.structured_output
  assert.equal(value, { city: 'Oslo', celsius: 4 })
  assert.equal(msg.metadata.structured_output, { city: 'Oslo', celsius: 4 })
  assert.is(msg.finished_reason, 'completed')
  assert.is(model.requests.length, 1, 'no model call after the value')
  const tool = model.requests[0].tools.find((t) => t.name === 'generate_response')
  assert.equal(tool?.input_schema, { type: 'object', properties: { city: { type: 'string' }, celsius: { type: 'number' } }, required: ['city', 'celsius'] })
  assert.equal(agent.state.context.at(-1)!.structured_output, { city: 'Oslo', celsius: 4 }, 'the context holds the value too')
  assert.equal([...new Set(types(agent.log))].sort(), [
    'MODEL_CALL_END', 'MODEL_CALL_START', 'MODEL_CALL_USAGE', 'REPLY_END', 'REPLY_START', 'TEXT_BLOCK_DELTA', 'TEXT_BLOCK_END', 'TEXT_BLOCK_START',
    'TOOL_CALL_DELTA', 'TOOL_CALL_END', 'TOOL_CALL_START', 'TOOL_RESULT_END', 'TOOL_RESULT_START', 'TOOL_RESULT_TEXT_DELTA', 'TOOL_STARTED', 'USER_MESSAGE',
  ], 'only ordinary events')
  assert.equal(protocolProblems(agent.log), [])
  assert.equal(checkLog(agent.log).violations, [])
  checkInvariants(agent)
})

test('a value that fails validation goes back as an error result, and the model corrects itself', async () => {
  const { agent, model } = makeAgent([
    respond('r1', { city: 'Oslo', celsius: 'cold' }),
    respond('r2', { city: 'Oslo', celsius: -2 }),
  ], [])
  const msg = await agent.reply(UserMsg({ content: 'Weather?' }), { output: Weather })
  assert.equal(msg.structured_output, { city: 'Oslo', celsius: -2 })
  const [bad, good] = results(msg)
  assert.is(bad.state, 'error')
  assert.match(String(bad.output), 'celsius')
  assert.is(good.state, 'success')
  const second = model.requests[1].messages.at(-1)!
  assert.ok(second.content.some((b) => b.type === 'tool_result' && b.state === 'error'), 'the model saw the error result')
  checkInvariants(agent)
})

test('a text-only answer does not end a structured reply: the next call forces generate_response', async () => {
  const { agent, model } = makeAgent([say('It is cold in Oslo.'), respond('r1', { city: 'Oslo', celsius: 1 })], [])
  const msg = await agent.reply(UserMsg({ content: 'Weather?' }), { output: Weather })
  assert.equal(model.requests.map((r) => r.tool_choice), ['auto', { name: 'generate_response' }])
  assert.equal(msg.structured_output, { city: 'Oslo', celsius: 1 })
  checkInvariants(agent)
})

test('at maxIters the tool is forced; a valid value then completes the reply', async () => {
  const p = probe()
  const { agent, model } = makeAgent([
    callTool('c1', 'slow', { x: 'a' }),
    respond('r1', { city: 'Rome', celsius: 20 }),
  ], [slowTool(p, { ms: 1 })], { maxIters: 1 })
  const msg = await agent.reply(UserMsg({ content: 'Weather?' }), { output: Weather })
  assert.equal(model.requests.map((r) => r.tool_choice), ['auto', { name: 'generate_response' }])
  assert.equal(msg.structured_output, { city: 'Rome', celsius: 20 })
  assert.is(msg.finished_reason, 'completed')
  checkInvariants(agent)
})

test('out of iterations: a forced call that fails validation leaves no value, and the reply says exceed_max_iters', async () => {
  const { agent } = makeAgent([respond('r1', { city: 'Rome' }), respond('r2', { celsius: 3 })], [], { maxIters: 1 })
  const msg = await agent.reply(UserMsg({ content: 'Weather?' }), { output: Weather })
  assert.is(msg.finished_reason, 'exceed_max_iters')
  assert.is(msg.structured_output, null)
  assert.not.ok('structured_output' in msg.metadata)
  assert.equal(results(msg).map((r) => r.state), ['error', 'error'])
  checkInvariants(agent)
})

test('interrupted while the value streams: no value, even for arguments that were already complete', async () => {
  const model = scriptedModel([[...respond('r1', { city: 'Oslo', celsius: 4 }), { type: 'delay', ms: 5000 }]])
  const { agent } = makeAgent([], [], { model, output: Weather })
  const seen: string[] = []
  for await (const event of agent.replyStream(UserMsg({ content: 'Weather?' }))) {
    seen.push(event.type)
    if (seen.filter((t) => t === 'TOOL_CALL_DELTA').length === 3 && event.type === 'TOOL_CALL_DELTA') void agent.interrupt()
  }
  assert.is(seen.at(-1), 'REPLY_END')
  const msg = agent.state.context.at(-1)!
  assert.is(msg.finished_reason, 'interrupted')
  assert.is(msg.structured_output, null)
  assert.equal(results(msg).map((r) => r.state), ['interrupted'])
  checkInvariants(agent)
})

test('reply() of an interrupted structured reply resolves with no value and says interrupted', async () => {
  const { agent } = makeAgent([[{ type: 'delay', ms: 5000 }, ...respond('r1', { city: 'Oslo', celsius: 4 })]], [])
  const controller = new AbortController()
  setTimeout(() => controller.abort(), 10)
  const msg = await agent.reply(UserMsg({ content: 'Weather?' }), { output: Weather, signal: controller.signal })
  assert.is(msg.finished_reason, 'interrupted')
  assert.is(msg.structured_output, null)
})

test("the agent default applies to every reply; a reply's own output overrides it; an agent without one offers no such tool", async () => {
  const Other = z.object({ yes: z.boolean() })
  const { agent, model } = makeAgent([respond('r1', { city: 'Oslo', celsius: 4 }), respond('r2', { yes: true })], [], { output: Weather })
  assert.equal((await agent.reply(UserMsg({ content: 'a' }))).structured_output, { city: 'Oslo', celsius: 4 })
  assert.equal((await agent.reply(UserMsg({ content: 'b' }), { output: Other })).structured_output, { yes: true })
  assert.equal(model.requests[1].tools.find((t) => t.name === 'generate_response')?.input_schema, { type: 'object', properties: { yes: { type: 'boolean' } }, required: ['yes'] })
  const plain = makeAgent([say('Plain.')], [])
  const msg = await plain.agent.reply(UserMsg({ content: 'c' }))
  assert.equal(plain.model.requests[0].tools, [])
  assert.is(msg.structured_output, null)
  assert.is(msg.finished_reason, 'completed')
})

test('an agent restored from the log of a structured reply has the value, without calling a model', async () => {
  const { agent } = makeAgent([respond('r1', { city: 'Oslo', celsius: 4 })], [], { output: Weather })
  await agent.reply(UserMsg({ content: 'a' }))
  const idle = scriptedModel([])
  const restored = makeAgent([], [], { model: idle, log: memoryLog(JSON.parse(JSON.stringify(agent.log))) }).agent
  assert.equal(restored.state, agent.state)
  assert.equal(restored.state.context.at(-1)!.structured_output, { city: 'Oslo', celsius: 4 })
  assert.is(idle.requests.length, 0)
})

const bookTool = defineTool({ name: 'book', description: 'books a table', input: z.object({ at: z.string() }), permission: 'ask', execute: () => 'booked' })

/** A reply with `output` that pauses for the user to confirm a booking; `later` are the model's turns after it. */
const pausedStructuredReply = async (output: z.ZodType, later: ScriptedTurn[] = []) => {
  const model = scriptedModel([callTool('b1', 'book', { at: '19:00' }), ...later])
  const agent = createAgent({ name: 'Friday', model, tools: [bookTool], clock: counterClock('a') })
  await agent.reply('Book a table, then tell me the weather.', { output })
  assert.is(agent.state.status, 'paused')
  return { agent, model }
}

test('a paused structured reply resumed in another process asks for the same value: REPLY_START records the schema', async () => {
  const { agent: first, model: firstModel } = await pausedStructuredReply(Weather)
  const start = first.log.find((e) => e.type === 'REPLY_START')!
  const shown = firstModel.requests[0].tools.find((t) => t.name === 'generate_response')!.input_schema
  assert.equal(start.metadata.output_schema, shown, 'the schema, as the model was shown it')
  assert.equal(shown, { type: 'object', properties: { city: { type: 'string' }, celsius: { type: 'number' } }, required: ['city', 'celsius'] })
  // Another process: a new agent, with no output of its own, on the log as it was stored.
  const model = scriptedModel([respond('r1', { city: 'Oslo', celsius: 'cold' }), respond('r2', { city: 'Oslo', celsius: -2 })])
  const second = createAgent({ name: 'Friday', model, tools: [bookTool], clock: counterClock('b'), log: memoryLog(JSON.parse(JSON.stringify(first.log)) as AgentEvent[]) })
  const msg = await second.approve('b1')
  assert.ok(model.requests[0].tools.some((t) => t.name === 'generate_response'), 'the model is offered the output tool')
  const [booked, bad, good] = results(msg)
  assert.equal([booked.state, bad.state, good.state], ['success', 'error', 'success'])
  assert.match(String(bad.output), 'celsius')
  assert.equal(msg.structured_output, { city: 'Oslo', celsius: -2 })
  checkInvariants(second)
})

test('the process that started a structured reply resumes it with its own zod schema (a refinement JSON Schema cannot say)', async () => {
  const Earthly = Weather.refine((w) => w.celsius > -50, 'colder than anywhere on Earth today')
  const { agent } = await pausedStructuredReply(Earthly, [respond('r1', { city: 'Oslo', celsius: -60 }), respond('r2', { city: 'Oslo', celsius: -2 })])
  const msg = await agent.approve('b1')
  const [, refused, good] = results(msg)
  assert.is(refused.state, 'error')
  assert.match(String(refused.output), 'colder than anywhere')
  assert.is(good.state, 'success')
  assert.equal(msg.structured_output, { city: 'Oslo', celsius: -2 })
  checkInvariants(agent)
})

test('a reply started without an output resumes without one, even on an agent whose default has one', async () => {
  const plain = createAgent({ name: 'Friday', model: scriptedModel([callTool('b1', 'book', { at: '19:00' })]), tools: [bookTool], clock: counterClock('a') })
  await plain.reply('Book a table.')
  assert.is(plain.log.find((e) => e.type === 'REPLY_START')!.metadata.output_schema, undefined, 'nothing recorded')
  const model = scriptedModel([say('Booked for 19:00.')])
  const withDefault = createAgent({ name: 'Friday', model, tools: [bookTool], output: Weather, clock: counterClock('b'), log: memoryLog(JSON.parse(JSON.stringify(plain.log)) as AgentEvent[]) })
  const msg = await withDefault.approve('b1')
  assert.not.ok(model.requests[0].tools.some((t) => t.name === 'generate_response'))
  assert.is(msg.finished_reason, 'completed')
  assert.is(msg.structured_output, null)
})

test('bad output options are refused with INVALID_OPTION before anything is logged', async () => {
  const { agent } = makeAgent([say('x')], [])
  for (const output of [z.string(), { type: 'object' }, 42]) {
    try {
      await agent.reply(UserMsg({ content: 'a' }), { output: output as never })
      assert.unreachable('refused')
    } catch (error) {
      assert.instance(error, AgentError)
      assert.is((error as AgentError).code, 'INVALID_OPTION')
    }
  }
  assert.is(agent.log.length, 0)
  const own = slowTool(probe(), { name: 'generate_response' })
  assert.throws(() => makeAgent([], [own], { output: Weather }), (e: unknown) => e instanceof AgentError && e.code === 'INVALID_OPTION' && /own tool named "generate_response"/.test(e.message))
})

test('the scripted model refuses a turn that ignores a forced tool_choice, as a provider would', async () => {
  const { agent } = makeAgent([say('No.'), say('Still no.')], [])
  const msg = await agent.reply(UserMsg({ content: 'Weather?' }), { output: Weather }).catch((e: Error) => e)
  assert.instance(msg, Error)
  assert.match((msg as Error).message, 'must call "generate_response"')
  assert.is(agent.state.status, 'idle')
  checkInvariants(agent)
})

test.run()
