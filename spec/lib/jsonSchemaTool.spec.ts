// defineTool with a JSON Schema input (what MCP servers publish): the schema is offered to the model
// as given, and the arguments are validated before the call, as with a zod schema.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { AgentError, callTool, defineTool, say, UserMsg, type ToolResultBlock } from '../../lib/index.js'
import { checkInvariants, makeAgent } from '../helpers/fixtures.js'

const test = suite('lib/jsonSchemaTool')
const schema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  properties: { city: { type: 'string', minLength: 2 }, days: { type: 'integer', minimum: 1 } },
  required: ['city'],
  additionalProperties: false,
}

test('the JSON Schema is offered as given (without $schema); invalid arguments are an error result and the tool does not run', async () => {
  const received: unknown[] = []
  const forecast = defineTool({ name: 'forecast', description: 'Weather forecast', input: schema, execute: (input) => {
    received.push(input)
    return `sunny in ${String(input.city)}`
  } })
  const { $schema: _, ...offered } = schema
  assert.equal(forecast.spec.input_schema, offered)
  const { agent } = makeAgent([
    [...callTool('c1', 'forecast', { city: 'X' }), ...callTool('c2', 'forecast', { city: 'Oslo', days: 1.5 }), ...callTool('c3', 'forecast', { city: 'Oslo', extra: 1 })],
    callTool('c4', 'forecast', { city: 'Oslo', days: 2 }),
    say('Sunny.'),
  ], [forecast])
  await agent.reply(UserMsg({ content: 'weather?' }))
  const results = agent.state.context.at(-1)!.content.filter((b): b is ToolResultBlock => b.type === 'tool_result')
  assert.equal(results.map((r) => r.state), ['error', 'error', 'error', 'success'])
  assert.match(String(results[0].output), 'city')
  assert.match(String(results[1].output), 'days')
  assert.equal(received, [{ city: 'Oslo', days: 2 }], 'only the valid call ran')
  checkInvariants(agent)
})

test('a JSON Schema zod cannot read, or an input that is no schema, is refused by defineTool', () => {
  const refused = (input: unknown, text: string) =>
    assert.throws(() => defineTool({ name: 't', description: 'd', input: input as never, execute: () => 'x' }), (e: unknown) => e instanceof AgentError && e.code === 'INVALID_OPTION' && e.message.includes(text))
  refused({ type: 'object', properties: { a: { type: 'strange' } } }, 'cannot be used to validate')
  refused({ type: 'string' }, 'JSON Schema object')
  refused('object', 'JSON Schema object')
})

test.run()
