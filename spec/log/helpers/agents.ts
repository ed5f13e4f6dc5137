// Agents for the log specs: tools (streaming, asking, external, slow), scripted turns that build a
// log with every kind of reply end (completed, interrupted while a tool runs and while the model
// streams, denied, errored, external, paused), and the invariant checks a restored agent must pass.
import { isDeepStrictEqual } from 'node:util'
import * as assert from 'uvu/assert'
import { z } from 'zod'
import {
  callTool, createAgent, defineTool, ModelError, replay, say, scriptedModel, think, usage, UserConfirmResultEvent,
  ExternalExecutionResultEvent, ToolResultBlock, UserMsg, type Agent, type LogStore, type ScriptedTurn, type Tool,
} from '../../../lib/index.js'
import { sleep } from '../../../lib/core/abort.js'
import { checkLog } from '../../../lib/core/logCheck.js'

/** A concurrency-safe tool that streams its answer in three chunks, `ms` apart. */
export const echoTool = (ms = 5): Tool => defineTool({
  name: 'echo', description: 'Echoes text, slowly', input: z.object({ text: z.string() }), concurrencySafe: true,
  execute: async function* ({ text }, { signal }) {
    for (const part of [text.slice(0, 2), text.slice(2, 4), text.slice(4)]) {
      await sleep(ms, signal)
      yield part
    }
  },
})

export const slowTool = (ms = 2000): Tool => defineTool({
  name: 'slow', description: 'Takes a while', input: z.object({}),
  execute: async (_, { signal }) => {
    await sleep(ms, signal)
    return 'slow done'
  },
})

export const askTool = (): Tool => defineTool({
  name: 'delete_file', description: 'Deletes a file (asks first)', input: z.object({ path: z.string() }), permission: 'ask',
  execute: ({ path }) => `deleted ${path}`,
})

export const externalTool = (): Tool => defineTool({ name: 'lookup', description: 'Runs on the client', input: z.object({ q: z.string() }), external: true })

export const allTools = (): Tool[] => [echoTool(), slowTool(), askTool(), externalTool()]

/** Asserts what must hold of any agent at rest: the log's invariants, and replay(log) = state. */
export const assertConsistent = (agent: Agent, label = '') => {
  const { violations } = checkLog(agent.log)
  assert.equal(violations, [], `${label} log invariants`)
  assert.ok(isDeepStrictEqual(replay(JSON.parse(JSON.stringify(agent.log))), agent.state), `${label} replay(log) deep-equals agent.state`)
}

const modelTurns = (): ScriptedTurn[] => [
  // 1 completed: a tool round, then the answer
  [...think('Use echo.'), ...callTool('e1', 'echo', { text: 'hello' }, 2), usage(10, 5)],
  [...say('It said hello.', 3), usage(20, 4)],
  // 2 interrupted while the slow tool runs
  [...callTool('s1', 'slow', {}), usage(5, 1)],
  // 3 interrupted while the model streams (the delay lets the caller stop it)
  [...say('Let me think about ', 2), usage(7, 2), { type: 'delay', ms: 2000 }, ...say('this.')],
  // 4 denied, then an answer that knows it
  [...callTool('d1', 'delete_file', { path: '/etc/hosts' })],
  [...say('I will not delete it.'), usage(3, 3)],
  // 5 errored: partial text, then the model fails
  [...say('Part'), { type: 'fail', error: new ModelError({ type: 'rate_limit', message: 'Too many requests' }) }],
  // 6 external execution
  [...callTool('x1', 'lookup', { q: 'weather' })],
  [...say('Sunny, says the client.')],
  // 7 paused, left waiting for a confirmation
  [...callTool('d2', 'delete_file', { path: '/tmp/x' })],
]

/** Runs seven replies that end in every way there is; the log is left with reply 7 paused. */
export const runEveryEnding = async (log: LogStore): Promise<Agent> => {
  const agent = createAgent({ name: 'Friday', model: scriptedModel(modelTurns()), tools: allTools(), log })
  await agent.reply(UserMsg({ content: 'Say hello through echo.' }))
  for await (const e of agent.replyStream(UserMsg({ content: 'Run the slow tool.' }))) if (e.type === 'TOOL_RESULT_START') break
  for await (const e of agent.replyStream(UserMsg({ content: 'Think aloud.' }))) {
    if (e.type !== 'TEXT_BLOCK_DELTA') continue
    await sleep(30) // the model is now in its long delay, its text and usage recorded
    break
  }
  await agent.reply(UserMsg({ content: 'Delete /etc/hosts.' }))
  const asked = agent.state.waiting_for[0]
  await agent.reply(UserConfirmResultEvent({ reply_id: agent.state.reply_id!, confirm_results: [{ confirmed: false, tool_call: asked }] }))
  await agent.reply(UserMsg({ content: 'Fail, please.' })).catch((error: unknown) => assert.instance(error, ModelError))
  await agent.reply(UserMsg({ content: 'Weather?' }))
  const sent = agent.state.waiting_for[0]
  await agent.reply(ExternalExecutionResultEvent({
    reply_id: agent.state.reply_id!, execution_results: [ToolResultBlock({ id: sent.id, name: sent.name, output: 'sunny' })],
  }))
  await agent.reply(UserMsg({ content: 'Delete /tmp/x.' }))
  assert.is(agent.state.status, 'paused', 'the last reply is left paused')
  return agent
}

/** An agent whose replies each run one echo round and answer; `replies` replies are run. */
export const echoAgent = async (log: LogStore, replies = 1, observe?: (agent: Agent) => void): Promise<Agent> => {
  const turns: ScriptedTurn[] = []
  for (let i = 0; i < replies + 4; i++) turns.push([...callTool(`t${i}`, 'echo', { text: `hello ${i}` }, 2), usage(3, 2)], [...say(`Echoed ${i}.`, 3), usage(4, 1)])
  const agent = createAgent({ name: 'Friday', model: scriptedModel(turns), tools: [echoTool(0)], log })
  observe?.(agent)
  for (let i = 0; i < replies; i++) await agent.reply(UserMsg({ content: `Echo ${i}.` }))
  return agent
}
