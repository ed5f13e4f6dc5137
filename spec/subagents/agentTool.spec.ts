import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { z } from 'zod'
import { agentTool, callTool, counterClock, createAgent, defineTool, say, STRUCTURED_OUTPUT_TOOL, scriptedModel, treeUsage, usage, type Tool, type ToolResultBlock } from '../../lib/index.js'
import { collect, types } from '../helpers/fixtures.js'
import { checkTree, firstOf } from '../helpers/tree.js'

const test = suite('subagents/agentTool')

const researcher = (turns = [[...say('Paris is the capital.', 3)]]) =>
  agentTool({ name: 'research', description: 'Researches a question', agent: { name: 'Researcher', model: scriptedModel(turns), clock: counterClock('r') } })

const lead = (tools: Tool[] = [researcher()], turns = [[...say('Asking.'), ...callTool('c1', 'research', { task: 'Capital of France?' })], [...say('It is Paris.')]]) =>
  createAgent({ name: 'Lead', model: scriptedModel(turns), tools, clock: counterClock('l') })

const resultOf = (agent: ReturnType<typeof lead>, id = 'c1') =>
  agent.state.context.flatMap((m) => m.content).find((b): b is ToolResultBlock => b.type === 'tool_result' && b.id === id)!

test('a sub-agent call runs the child in its own session; the logs link both ways', async () => {
  const agent = lead()
  const reply = await agent.reply('What is the capital of France?')
  assert.ok(reply.text.endsWith('It is Paris.'))
  const [child] = agent.children()
  assert.ok(child, 'the child is reachable from the parent')
  assert.is.not(child.session_id, agent.session_id)
  const start = firstOf(agent, 'TOOL_RESULT_START')!
  assert.is(start.metadata.child_session_id, child.session_id)
  const childStart = firstOf(child, 'REPLY_START')!
  assert.equal(childStart.metadata.parent, { session_id: agent.session_id, reply_id: reply.id, tool_call_id: 'c1' })
  assert.is(firstOf(child, 'USER_MESSAGE')!.type, 'USER_MESSAGE')
  assert.is(child.state.context[0].content[0].type === 'text' && child.state.context[0].content[0].text, 'Capital of France?')
  checkTree(agent)
})

test("the child's text streams into the call's TOOL_RESULT_TEXT_DELTAs and is its result", async () => {
  const slowChild = agentTool({ name: 'research', description: 'R', agent: { name: 'Researcher', model: scriptedModel([say('Paris is the capital.', 3)], { chunkDelayMs: 2 }) } })
  const agent = lead([slowChild])
  const events = await collect(agent.replyStream('Q'))
  const deltas = events.flatMap((e) => (e.type === 'TOOL_RESULT_TEXT_DELTA' ? [e.delta] : []))
  const [child] = agent.children()
  const childDeltas = child.log.flatMap((e) => (e.type === 'TEXT_BLOCK_DELTA' ? [e.delta] : []))
  assert.is(deltas.join(''), childDeltas.join(''))
  assert.ok(deltas.length > 1, 'the text reached the call as it was produced, in several deltas')
  assert.is(textOfOutput(resultOf(agent).output), 'Paris is the capital.')
  assert.is(resultOf(agent).state, 'success')
  assert.is(resultOf(agent).metadata.child_session_id, child.session_id)
})

test("no chunk of the child's text is lost when it arrives while the call's stream is busy (at once, and before a pause)", async () => {
  const fast = lead([researcher([[...say('Paris is the capital.', 5)]])])
  await fast.reply('Q')
  assert.is(textOfOutput(resultOf(fast).output), 'Paris is the capital.')
  const remove = defineTool({ name: 'remove', description: 'Removes', input: z.object({ path: z.string() }), permission: 'ask', execute: () => 'removed' })
  const asking = agentTool({ name: 'research', description: 'R', agent: { name: 'Researcher', tools: [remove], model: scriptedModel([[...say('Looking it up. ', 4), ...callTool('r1', 'remove', { path: '/a' })], [...say('Removed.')]]) } })
  const parked = lead([asking])
  await parked.reply('Q')
  const streamed = parked.log.flatMap((e) => (e.type === 'TOOL_RESULT_TEXT_DELTA' ? [e.delta] : [])).join('')
  assert.is(streamed, 'Looking it up. ', "the child's text before its pause is all in the call")
  await parked.approve('r1')
  assert.is(textOfOutput(resultOf(parked).output), 'Looking it up. Removed.')
  checkTree(parked)
})

test('with an output schema the result is the structured value as JSON', async () => {
  const report = agentTool({
    name: 'research', description: 'Researches', output: z.object({ city: z.string() }),
    agent: { name: 'Researcher', model: scriptedModel([[...callTool('o1', STRUCTURED_OUTPUT_TOOL, { city: 'Paris' })]]), clock: counterClock('r') },
  })
  const agent = lead([report])
  await agent.reply('Q')
  assert.equal(JSON.parse(textOfOutput(resultOf(agent).output)), { city: 'Paris' })
  assert.equal(resultOf(agent).metadata.structured_output, { city: 'Paris' })
  checkTree(agent)
})

test('a call deeper than maxDepth gets a coded error result and starts no agent', async () => {
  // Each level's agent delegates again: depth 1 and 2 run, depth 3 is refused (maxDepth 2).
  const nested = (): ReturnType<typeof agentTool> => agentTool({
    name: 'delegate', description: 'Delegates', maxDepth: 2,
    agent: () => ({ name: 'Worker', model: scriptedModel([[...callTool('d1', 'delegate', { task: 'go on' })], [...say('done')]]), tools: [nested()], clock: counterClock('w') }),
  })
  const agent = lead([nested()], [[...callTool('c1', 'delegate', { task: 'go' })], [...say('ok')]])
  await agent.reply('Q')
  const depth1 = agent.children()[0]
  const depth2 = depth1.children()[0]
  assert.ok(depth2, 'depth 2 runs')
  assert.equal(depth2.children(), [], 'depth 3 is not started')
  const refused = depth2.state.context.flatMap((m) => m.content).find((b): b is ToolResultBlock => b.type === 'tool_result')!
  assert.is(refused.state, 'error')
  assert.equal((refused.metadata.error as { code: string }).code, 'MAX_DEPTH')
  assert.match(textOfOutput(refused.output), /MAX_DEPTH.*maxDepth 2/)
  checkTree(agent)
})

test('a child whose model fails gives the call an error result and the parent goes on', async () => {
  const failing = agentTool({ name: 'research', description: 'R', agent: { name: 'Researcher', model: scriptedModel([[{ type: 'fail', error: new Error('boom') }]]), clock: counterClock('r') } })
  const agent = lead([failing])
  const reply = await agent.reply('Q')
  assert.ok(reply.text.endsWith('It is Paris.'))
  assert.is(resultOf(agent).state, 'error')
  assert.match(textOfOutput(resultOf(agent).output), /sub-agent "Researcher" failed/)
  checkTree(agent)
})

test('the sub-agent options may be a function of the input; the prompt option shapes the message', async () => {
  const seen: string[] = []
  const tool = agentTool({
    name: 'translate', description: 'Translates', input: z.object({ text: z.string(), to: z.string() }),
    prompt: ({ text, to }) => `Translate "${text}" to ${to}`,
    agent: ({ to }) => ({ name: `Translator-${to}`, model: scriptedModel([(request) => { seen.push(JSON.stringify(request.messages.at(-1))); return say('Bonjour') }]) }),
  })
  const agent = lead([tool], [[...callTool('c1', 'translate', { text: 'Hello', to: 'fr' })], [...say('Done.')]])
  await agent.reply('Q')
  assert.is(agent.children()[0].name, 'Translator-fr')
  assert.match(seen[0], /Translate \\"Hello\\" to fr/)
  assert.is(textOfOutput(resultOf(agent).output), 'Bonjour')
})

test('types of the parent reply: the call is an ordinary tool round', async () => {
  const agent = lead()
  const events = await collect(agent.replyStream('Q'))
  assert.equal(types(events).filter((t) => !t.endsWith('_DELTA')), [
    'REPLY_START', 'MODEL_CALL_START', 'TEXT_BLOCK_START', 'TEXT_BLOCK_END', 'TOOL_CALL_START', 'TOOL_CALL_END', 'MODEL_CALL_END',
    'TOOL_RESULT_START', 'TOOL_RESULT_END', 'MODEL_CALL_START', 'TEXT_BLOCK_START', 'TEXT_BLOCK_END', 'MODEL_CALL_END', 'REPLY_END',
  ])
})

const textOfOutput = (output: ToolResultBlock['output']): string =>
  typeof output === 'string' ? output : output.map((b) => (b.type === 'text' ? b.text : '')).join('')

test('treeUsage sums the usage every log of the tree keeps on its own; the reply reports its tree usage in its metadata', async () => {
  const counted = agentTool({ name: 'research', description: 'R', agent: { name: 'Researcher', model: scriptedModel([[...say('Paris.'), usage(5, 2)]]) } })
  const agent = lead([counted], [[...callTool('c1', 'research', { task: 'Q' }), usage(10, 3)], [...say('It is Paris.'), usage(20, 4)]])
  const reply = await agent.reply('Q')
  const [child] = agent.children()
  assert.is(child.state.usage.input_tokens, 5)
  assert.equal(resultOf(agent).metadata.usage, { input_tokens: 5, output_tokens: 2, cache_input_tokens: 0, cache_creation_input_tokens: 0 }, "the call's result records its child's usage")
  assert.equal(reply.metadata.tree_usage, { input_tokens: 35, output_tokens: 9, cache_input_tokens: 0, cache_creation_input_tokens: 0 }, "the root's reply reports its tree's usage")
  assert.is(agent.state.usage.input_tokens, 30, "the parent's log keeps its own usage only")
  assert.equal(treeUsage(agent), { input_tokens: 35, output_tokens: 9, cache_input_tokens: 0, cache_creation_input_tokens: 0 })
})

test("close() closes the sub-agents the agent ran, and their tools", async () => {
  let closed = 0
  const held = defineTool({ name: 'held', description: 'Holds a resource', input: z.object({}), execute: () => 'ok', close: () => void closed++ })
  const tool = agentTool({ name: 'research', description: 'R', agent: { name: 'Researcher', tools: [held], model: scriptedModel([[...say('Paris.')]]) } })
  const agent = lead([tool])
  await agent.reply('Q')
  await agent.close()
  assert.is(closed, 1)
  assert.is(agent.children()[0].failure?.code, 'CLOSED')
})

test.run()
