// The caps that bound a fan-out (issue 28, item 6): the calls of one model response that are run
// (maxCallsPerResponse, default 100) and the sub-agents of an agent tool running at once for one
// parent (maxConcurrentSubagents, default 16). The calls past a cap run nothing and get an `error`
// result with the code LIMIT_REACHED, which the model reads in its next request; the reply goes on.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { z } from 'zod'
import {
  AgentError, agentTool, callTool, counterClock, createAgent, DEFAULT_MAX_CALLS_PER_RESPONSE, DEFAULT_MAX_CONCURRENT_SUBAGENTS, defineTool, replay, say,
  scriptedModel, type Agent, type ToolResultBlock,
} from '../../lib/index.js'

const test = suite('effects/callCaps')

const results = (agent: Agent) => agent.state.context.flatMap((m) => m.content).filter((b): b is ToolResultBlock => b.type === 'tool_result')
const text = (r: ToolResultBlock) => (typeof r.output === 'string' ? r.output : r.output.map((b) => (b.type === 'text' ? b.text : '')).join(''))
const calls = (n: number, name: string, input: (i: number) => unknown) => Array.from({ length: n }, (_, i) => callTool(`c${i}`, name, input(i))).flat()

test('maxCallsPerResponse: the calls past it get a LIMIT_REACHED error result the model reads; the first ones run; replay agrees', async () => {
  const ran: number[] = []
  const count = defineTool({ name: 'count', description: 'Counts', input: z.object({ i: z.number() }), concurrencySafe: true, execute: ({ i }) => String(ran.push(i)) })
  const model = scriptedModel([calls(5, 'count', (i) => ({ i })), say('done')])
  const agent = createAgent({ name: 'a', model, tools: [count], maxCallsPerResponse: 3, clock: counterClock('k') })
  const reply = await agent.reply('fan out')
  assert.is(reply.finished_reason, 'completed')
  assert.equal(ran.sort(), [0, 1, 2])
  const byId = new Map(results(agent).map((r) => [r.id, r]))
  for (const id of ['c0', 'c1', 'c2']) assert.is(byId.get(id)!.state, 'success')
  for (const id of ['c3', 'c4']) {
    assert.is(byId.get(id)!.state, 'error')
    assert.match(text(byId.get(id)!), /LIMIT_REACHED/)
    assert.match(text(byId.get(id)!), /at most 3 are run per response \(maxCallsPerResponse\)/)
  }
  const seen = JSON.stringify(model.requests[1]!.messages)
  assert.ok(seen.includes('LIMIT_REACHED'), 'the model reads the refusal in its next request')
  assert.equal(replay(agent.log), agent.state)
})

test(`maxCallsPerResponse defaults to ${DEFAULT_MAX_CALLS_PER_RESPONSE}: one call more than that gets the error, the rest run`, async () => {
  let ran = 0
  const count = defineTool({ name: 'count', description: 'Counts', input: z.object({}), concurrencySafe: true, execute: () => String(++ran) })
  const agent = createAgent({ name: 'a', model: scriptedModel([calls(DEFAULT_MAX_CALLS_PER_RESPONSE + 1, 'count', () => ({})), say('done')]), tools: [count] })
  await agent.reply('fan out')
  assert.is(ran, DEFAULT_MAX_CALLS_PER_RESPONSE)
  const errors = results(agent).filter((r) => r.state === 'error')
  assert.equal(errors.map((r) => r.id), [`c${DEFAULT_MAX_CALLS_PER_RESPONSE}`])
})

test('maxCallsPerResponse must be a whole number of at least 1', () => {
  for (const bad of [0, -1, 1.5, '3'])
    assert.throws(() => createAgent({ name: 'a', model: scriptedModel([]), maxCallsPerResponse: bad as never }), (e: AgentError) => e.code === 'INVALID_OPTION' && /maxCallsPerResponse/.test(e.message))
})

test('maxConcurrentSubagents: sub-agents past it start nothing and get LIMIT_REACHED; once they end, new calls run again', async () => {
  let started = 0
  const helper = agentTool({
    name: 'helper', description: 'Helps', concurrencySafe: true, maxConcurrentSubagents: 2,
    agent: () => {
      started++
      return { name: 'Helper', model: scriptedModel([say('helped', 3)], { chunkDelayMs: 2 }) }
    },
  })
  const turns = [calls(4, 'helper', (i) => ({ task: `t${i}` })), [...callTool('d0', 'helper', { task: 'again' }), ...callTool('d1', 'helper', { task: 'again' })], say('done')]
  const agent = createAgent({ name: 'Lead', model: scriptedModel(turns), tools: [helper] })
  const reply = await agent.reply('delegate')
  assert.is(reply.finished_reason, 'completed')
  const byId = new Map(results(agent).map((r) => [r.id, r]))
  assert.equal(['c0', 'c1', 'c2', 'c3'].map((id) => byId.get(id)!.state), ['success', 'success', 'error', 'error'])
  for (const id of ['c2', 'c3']) assert.match(text(byId.get(id)!), /LIMIT_REACHED: 2 sub-agents of "helper" are already running/)
  assert.equal(['d0', 'd1'].map((id) => byId.get(id)!.state), ['success', 'success'], 'the count is released when the sub-agents end')
  assert.is(started, 4, 'no sub-agent was made for a refused call')
  assert.is(agent.children().length, 4)
})

test(`maxConcurrentSubagents defaults to ${DEFAULT_MAX_CONCURRENT_SUBAGENTS} and must be a whole number of at least 1`, () => {
  assert.is(DEFAULT_MAX_CONCURRENT_SUBAGENTS, 16)
  for (const bad of [0, 2.5, 'x'])
    assert.throws(() => agentTool({ name: 'h', description: 'd', agent: { name: 'H', model: scriptedModel([]) }, maxConcurrentSubagents: bad as never }), (e: AgentError) => e.code === 'INVALID_OPTION')
})

test.run()
