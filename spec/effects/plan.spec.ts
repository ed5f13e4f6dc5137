// Issue 9, items 1 and 13: user code in the planning step (input schemas, permission functions) is
// contained. A schema or permission check that throws (any value), or a permission answer that is
// not exactly 'allow' | 'ask' | 'deny', becomes that call's `error` result the model reads; the
// tool never runs, the reply goes on, and the agent stays usable. An effect that fails for another
// reason ends the reply with REPLY_END(error) and is subscribed again.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { z } from 'zod'
import { callTool, defineTool, say, UserMsg, type Tool, type ToolResultBlock } from '../../lib/index.js'
import { makeAgent } from '../helpers/fixtures.js'
import { assertAgentHolds, watchCrashes, within } from '../helpers/hardening.js'

const test = suite('effects/plan')

const script = () => [[...callTool('c1', 'fetch', { url: 'not a url' })], [...say('I could not fetch it.')], [...say('Hello again.')]]

const resultOf = (agent: ReturnType<typeof makeAgent>['agent']): ToolResultBlock =>
  agent.state.context[1].content.find((b): b is ToolResultBlock => b.type === 'tool_result')!

/** Runs a reply that calls `tool`, then a second reply: both must settle, the first with the call's error result. */
const runContained = async (tool: Tool, ran: string[]) => {
  const watch = watchCrashes()
  const { agent, model } = makeAgent(script(), [tool])
  const msg = await within(agent.reply(UserMsg({ content: 'fetch it' })))
  assert.is(msg.finished_reason, 'completed')
  const result = resultOf(agent)
  assert.is(result.state, 'error')
  assert.equal(ran, [], 'the tool never ran')
  const sentBack = model.requests[1].messages.at(-1)!.content.find((b) => b.type === 'tool_result')
  assert.ok(sentBack, 'the model was sent the error result')
  const again = await within(agent.reply(UserMsg({ content: 'hi' })))
  assert.is(again.finished_reason, 'completed', 'the agent stays usable')
  assertAgentHolds(agent)
  assert.equal(await watch.stop(), [])
  return typeof result.output === 'string' ? result.output : ''
}

const fetchTool = (ran: string[], extra: { permission?: () => unknown } = {}) => defineTool({
  name: 'fetch', description: 'Fetches a URL', input: z.object({ url: z.string() }),
  execute: ({ url }) => { ran.push(url); return 'page' }, permission: extra.permission as never,
})

test('a schema whose transform throws on the model input gives the call an error result', async () => {
  const ran: string[] = []
  const tool = defineTool({
    name: 'fetch', description: 'Fetches a URL', input: z.object({ url: z.string().transform((s) => new URL(s).href) }),
    execute: ({ url }) => { ran.push(url); return 'page' },
  })
  const output = await runContained(tool, ran)
  assert.match(output, /input schema of "fetch" failed/)
  assert.match(output, /Invalid URL/)
})

test('a schema refine that throws Object.create(null) is contained too', async () => {
  const ran: string[] = []
  const tool = defineTool({
    name: 'fetch', description: 'Fetches a URL', input: z.object({ url: z.string().refine(() => { throw Object.create(null) }) }),
    execute: ({ url }) => { ran.push(url); return 'page' },
  })
  assert.match(await runContained(tool, ran), /cannot be printed/)
})

test('a permission function that throws gives the call an error result', async () => {
  const ran: string[] = []
  assert.match(await runContained(fetchTool(ran, { permission: () => { throw new Error('policy store offline') } }), ran), /permission check of "fetch" failed: policy store offline/)
})

test('a permission function that throws a value String() cannot convert is contained', async () => {
  const ran: string[] = []
  assert.match(await runContained(fetchTool(ran, { permission: () => { throw Object.create(null) } }), ran), /permission check of "fetch" failed/)
})

for (const answer of ['Deny', 'Allow', 'yes', undefined, true, { behavior: 'allow' }]) {
  test(`a permission function answering ${JSON.stringify(answer)} fails closed: the tool does not run`, async () => {
    const ran: string[] = []
    const output = await runContained(fetchTool(ran, { permission: (() => answer) as never }), ran)
    assert.match(output, /instead of 'allow', 'ask' or 'deny'/)
  })
}

test('an effect that fails (a tool whose fields throw when read) ends the reply with REPLY_END(error); the next reply works', async () => {
  const watch = watchCrashes()
  const ran: string[] = []
  const tool = fetchTool(ran)
  Object.defineProperty(tool, 'concurrencySafe', { get: () => { throw new Error('broken getter') } })
  const { agent } = makeAgent([[...callTool('c1', 'fetch', { url: 'x' })], [...say('Hello again.')]], [tool])
  const error = await within(agent.reply(UserMsg({ content: 'go' }))).catch((e: unknown) => e)
  assert.instance(error, Error)
  assert.match((error as Error).message, /broken getter/)
  const end = agent.log.at(-1)!
  assert.is(end.type === 'REPLY_END' && end.finished_reason, 'error')
  assert.is(agent.state.status, 'idle')
  const again = await within(agent.reply(UserMsg({ content: 'hi' })))
  assert.is(again.finished_reason, 'completed', 'the effects were subscribed again')
  assertAgentHolds(agent)
  assert.equal(await watch.stop(), [])
})

test.run()
