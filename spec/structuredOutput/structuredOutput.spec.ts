// Structured output as AgentScope does it (issue 20, item 8): `reply(input, { output })` ends with a
// value of the schema through the built-in `GenerateStructuredOutput` tool; while the value is
// missing, a reminder hint precedes each model call (in the log and the context, not streamed); a
// value that fails validation is an error result the model corrects; from maxIters on the tool is
// forced for a few grace rounds, then the reply ends with exceed_max_iters; reply() resolves to
// "The required structured output is generated." with the value in `structured_output`; the
// USER_MESSAGE records the schema, so a paused reply resumed in another process asks for the same value.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { z } from 'zod'
import {
  AgentError, callTool, checkLog, counterClock, createAgent, defineTool, memoryLog, outputText, protocolProblems, say, scriptedModel, structuredOutputOf, UserMsg, usage,
  isOutputEvent, type AgentEvent, type Msg, type ScriptedTurn, type ToolResultBlock,
} from '../../lib/index.js'
import { checkInvariants, makeAgent, probe, slowTool, types } from '../helpers/fixtures.js'

const test = suite('structuredOutput')
const Weather = z.object({ city: z.string(), celsius: z.number() })
const TOOL = 'GenerateStructuredOutput'
const respond = (id: string, input: unknown) => callTool(id, TOOL, input, 3)
const REMINDER = "<system-reminder>You're required to generate structured output by calling the 'GenerateStructuredOutput' tool. Call it when you are ready to generate the final structured output.</system-reminder>"
const FORCED = "<system-reminder>You're required to generate structured output by calling the 'GenerateStructuredOutput' tool. You have reached the maximum reasoning-acting iterations, so call this tool at once to generate the final structured output.</system-reminder>"
const hints = (msg: Msg) => msg.content.flatMap((b) => b.type === 'hint' ? [outputText(b.hint)] : [])
const results = (msg: { content: { type: string }[] }) => msg.content.filter((b): b is ToolResultBlock => b.type === 'tool_result')

test('a valid GenerateStructuredOutput call ends the reply; reply() resolves to the notice with the value; the context keeps the hint, the call and its result', async () => {
  const { agent, model } = makeAgent([[...say('Looking it up.'), ...respond('r1', { city: 'Oslo', celsius: 4 }), usage(10, 5)]], [])
  const msg = await agent.reply(UserMsg({ content: 'Weather in Oslo?' }), { output: Weather })
  assert.equal([msg.id, msg.finished_reason, msg.structured_output, msg.text], [agent.state.reply_id, 'completed', { city: 'Oslo', celsius: 4 }, 'The required structured output is generated.'])
  const hint = agent.log.find((e) => e.type === 'HINT_ADDED')!
  assert.not.ok(isOutputEvent(hint), 'the reminder is in the log, not streamed')
  assert.is(model.requests.length, 1, 'no model call after the value')
  const first = agent.state.context[1]
  assert.equal(first.content.map((b) => b.type), ['hint', 'text', 'tool_call', 'tool_result'])
  assert.equal(hints(first), [REMINDER])
  const result = results(first)[0]
  assert.equal([result.name, result.state, outputText(result.output), result.metadata], [TOOL, 'success', 'Structured output generated successfully.', {}])
  assert.is(first.structured_output, null, 'the context message does not carry the value (AgentScope)')
  assert.equal(structuredOutputOf(first), { city: 'Oslo', celsius: 4 }, 'it is the call arguments')
  const tool = model.requests[0].tools.find((t) => t.name === TOOL)
  assert.equal(tool?.input_schema, { type: 'object', properties: { city: { type: 'string' }, celsius: { type: 'number' } }, required: ['city', 'celsius'] })
  assert.equal(model.requests[0].messages.at(-1)!.content.map((b) => b.type), ['hint'], 'the model reads the reminder')
  assert.equal([...new Set(types(agent.log))].filter((t) => !t.startsWith('TOOL_') && !t.startsWith('TEXT_') && !t.startsWith('MODEL_')).sort(), ['HINT_ADDED', 'REPLY_END', 'REPLY_START', 'USER_MESSAGE'])
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
  const [bad, good] = results(agent.state.context[1])
  assert.is(bad.state, 'error')
  // AgentScope's text (issue 28, item 21c): the tool, then what was wrong, as jsonschema says it.
  assert.is(outputText(bad.output), "Input validation failed for tool 'GenerateStructuredOutput': 'cold' is not of type 'number'")
  assert.is(good.state, 'success')
  const second = model.requests[1].messages.at(-1)!
  assert.ok(second.content.some((b) => b.type === 'tool_result' && b.state === 'error'), 'the model saw the error result')
  checkInvariants(agent)
})

test('a text-only answer does not end a structured reply: the next call is reminded again (not forced before maxIters)', async () => {
  const { agent, model } = makeAgent([say('It is cold in Oslo.'), respond('r1', { city: 'Oslo', celsius: 1 })], [])
  const msg = await agent.reply(UserMsg({ content: 'Weather?' }), { output: Weather })
  assert.equal(model.requests.map((r) => r.tool_choice), ['auto', 'auto'])
  assert.equal(agent.state.context[1].content.map((b) => b.type), ['hint', 'text', 'hint', 'tool_call', 'tool_result'])
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
  assert.equal(model.requests.map((r) => r.tool_choice), ['auto', { name: TOOL }])
  assert.equal(hints(agent.state.context[1]), [REMINDER, FORCED], 'the reminder says the tool is due at once')
  assert.equal(msg.structured_output, { city: 'Rome', celsius: 20 })
  assert.is(msg.finished_reason, 'completed')
  checkInvariants(agent)
})

test('out of iterations: the tool is forced for 5 grace rounds past maxIters, then the reply ends with exceed_max_iters and no value', async () => {
  const turns = Array.from({ length: 7 }, (_, i) => respond(`r${i}`, { city: 'Rome' }))
  const { agent, model } = makeAgent(turns, [], { maxIters: 1 })
  const msg = await agent.reply(UserMsg({ content: 'Weather?' }), { output: Weather })
  assert.is(msg.finished_reason, 'exceed_max_iters')
  assert.is(msg.structured_output, null)
  assert.equal(model.requests.map((r) => r.tool_choice), ['auto', ...Array(5).fill({ name: TOOL })])
  assert.equal(results(agent.state.context[1]).map((r) => r.state), Array(6).fill('error'))
  assert.is(agent.log.filter((e) => e.type === 'EXCEED_MAX_ITERS').length, 1)
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
  assert.equal(model.requests[1].tools.find((t) => t.name === TOOL)?.input_schema, { type: 'object', properties: { yes: { type: 'boolean' } }, required: ['yes'] })
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
  assert.equal(structuredOutputOf(restored.state.context.at(-1)!), { city: 'Oslo', celsius: 4 })
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

test('a paused structured reply resumed in another process asks for the same value: the USER_MESSAGE records the schema', async () => {
  const { agent: first, model: firstModel } = await pausedStructuredReply(Weather)
  const message = first.log.find((e) => e.type === 'USER_MESSAGE')!
  const shown = firstModel.requests[0].tools.find((t) => t.name === TOOL)!.input_schema
  assert.equal(message.metadata.output_schema, shown, 'the schema, as the model was shown it')
  assert.equal(first.log.find((e) => e.type === 'REPLY_START')!.metadata, { seq: 2 }, 'REPLY_START carries nothing AgentScope does not')
  assert.equal(shown, { type: 'object', properties: { city: { type: 'string' }, celsius: { type: 'number' } }, required: ['city', 'celsius'] })
  // Another process: a new agent, with no output of its own, on the log as it was stored.
  const model = scriptedModel([respond('r1', { city: 'Oslo', celsius: 'cold' }), respond('r2', { city: 'Oslo', celsius: -2 })])
  const second = createAgent({ name: 'Friday', model, tools: [bookTool], clock: counterClock('b'), log: memoryLog(JSON.parse(JSON.stringify(first.log)) as AgentEvent[]) })
  const msg = await second.approve('b1')
  assert.ok(model.requests[0].tools.some((t) => t.name === TOOL), 'the model is offered the output tool')
  const [booked, bad, good] = results(second.state.context[1])
  assert.equal([booked.state, bad.state, good.state], ['success', 'error', 'success'])
  assert.match(outputText(bad.output), "'cold' is not of type 'number'")
  assert.equal(msg.structured_output, { city: 'Oslo', celsius: -2 })
  checkInvariants(second)
})

test('the process that started a structured reply resumes it with its own zod schema (a refinement JSON Schema cannot say)', async () => {
  const Earthly = Weather.refine((w) => w.celsius > -50, 'colder than anywhere on Earth today')
  const { agent } = await pausedStructuredReply(Earthly, [respond('r1', { city: 'Oslo', celsius: -60 }), respond('r2', { city: 'Oslo', celsius: -2 })])
  const msg = await agent.approve('b1')
  const [, refused, good] = results(agent.state.context[1])
  assert.is(refused.state, 'error')
  assert.match(outputText(refused.output), 'colder than anywhere')
  assert.is(good.state, 'success')
  assert.equal(msg.structured_output, { city: 'Oslo', celsius: -2 })
  checkInvariants(agent)
})

test('a reply started without an output resumes without one, even on an agent whose default has one', async () => {
  const plain = createAgent({ name: 'Friday', model: scriptedModel([callTool('b1', 'book', { at: '19:00' })]), tools: [bookTool], clock: counterClock('a') })
  await plain.reply('Book a table.')
  assert.is(plain.log.find((e) => e.type === 'USER_MESSAGE')!.metadata.output_schema, undefined, 'nothing recorded')
  const model = scriptedModel([say('Booked for 19:00.')])
  const withDefault = createAgent({ name: 'Friday', model, tools: [bookTool], output: Weather, clock: counterClock('b'), log: memoryLog(JSON.parse(JSON.stringify(plain.log)) as AgentEvent[]) })
  const msg = await withDefault.approve('b1')
  assert.not.ok(model.requests[0].tools.some((t) => t.name === TOOL))
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
  const own = slowTool(probe(), { name: TOOL })
  assert.throws(() => makeAgent([], [own], { output: Weather }), (e: unknown) => e instanceof AgentError && e.code === 'INVALID_OPTION' && /own tool named "GenerateStructuredOutput"/.test(e.message))
})

test('the scripted model refuses a turn that ignores a forced tool_choice, as a provider would', async () => {
  const { agent } = makeAgent([say('No.'), say('Still no.')], [], { maxIters: 1 })
  const msg = await agent.reply(UserMsg({ content: 'Weather?' }), { output: Weather }).catch((e: Error) => e)
  assert.instance(msg, Error)
  assert.match((msg as Error).message, 'must call "GenerateStructuredOutput"')
  assert.is(agent.state.status, 'idle')
  checkInvariants(agent)
})

test('a value missing a required field: the error result names it as AgentScope does', async () => {
  const { agent } = makeAgent([respond('r1', { city: 'Oslo' }), respond('r2', { city: 'Oslo', celsius: 3 })], [])
  await agent.reply(UserMsg({ content: 'Weather?' }), { output: Weather })
  const [bad] = results(agent.state.context[1])
  assert.is(outputText(bad.output), "Input validation failed for tool 'GenerateStructuredOutput': 'celsius' is a required property")
})

test.run()
