// ReplyOptions.externalTools: tools the caller executes for a reply (AG-UI front-end tools). They
// are offered to the model with their JSON Schema, a call parks the reply for an external result,
// they last until a later reply names others, and the agent's own tools win a name clash.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { AgentError, callTool, ExternalExecutionResultEvent, say, ToolResultBlock, UserMsg } from '../../lib/index.js'
import { collect, makeAgent, probe, slowTool } from '../helpers/fixtures.js'

const test = suite('lib/callerTools')
const schema = { type: 'object', properties: { q: { type: 'string' } } }

test('a call to a caller tool parks the reply with REQUIRE_EXTERNAL_EXECUTION; its result resumes it', async () => {
  const { agent, model } = makeAgent([[...callTool('f-1', 'pick', { q: 'x' })], [...say('Picked.')], [...say('Plain.')]], [])
  const first = await collect(agent.replyStream(UserMsg({ content: 'pick' }), { externalTools: [{ name: 'pick', description: 'Picks in the UI', parameters: schema }] }))
  assert.equal(model.requests[0].tools, [{ name: 'pick', description: 'Picks in the UI', input_schema: schema }])
  assert.is(first.at(-1)!.type, 'REQUIRE_EXTERNAL_EXECUTION')
  const reply_id = agent.state.reply_id!
  await collect(agent.replyStream(ExternalExecutionResultEvent({ reply_id, execution_results: [ToolResultBlock({ id: 'f-1', name: 'pick', output: 'x picked' })] })))
  assert.is(agent.state.status, 'idle')
  assert.equal(model.requests[1].tools.map((t) => t.name), ['pick'], 'still offered while the reply runs on')
  await collect(agent.replyStream(UserMsg({ content: 'next' }), { externalTools: [] }))
  assert.equal(model.requests[2].tools, [], 'a later reply that names none offers none')
})

test('the agent\'s own tool wins a name clash; a bad caller tool is refused before anything is appended', async () => {
  const { agent, model } = makeAgent([[...say('Hi.')]], [slowTool(probe())])
  assert.throws(() => agent.replyStream(UserMsg({ content: 'x' }), { externalTools: [{ name: 'bad name', description: 'x' }] }), (e: unknown) => e instanceof AgentError && e.code === 'INVALID_OPTION')
  assert.throws(() => agent.replyStream(UserMsg({ content: 'x' }), { externalTools: 'pick' as never }), (e: unknown) => e instanceof AgentError && e.code === 'INVALID_OPTION')
  assert.is(agent.log.length, 0)
  await collect(agent.replyStream(UserMsg({ content: 'x' }), { externalTools: [{ name: 'slow', description: 'a shadow' }] }))
  assert.equal(model.requests[0].tools.map((t) => t.description), ['Waits 20 ms'])
})

test.run()
