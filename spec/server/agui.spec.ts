// The AG-UI endpoint driven by the real @ag-ui/client HttpAgent against the real server: every
// stream passes verifyEvents and @ag-ui/core's schemas; a plain answer, tools, an approval (approved,
// edited, denied), a front-end tool, abortRun() mid-text and mid-tool-call (the reply ends
// interrupted and the next run sees a consistent history), a model error, max iterations; a
// sub-agent (issue 21): its text is the agent tool's result, its confirmation the run's interrupt.
import { HttpAgent, type BaseEvent } from '@ag-ui/client'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { z } from 'zod'
import { agentTool, callTool, type Agent, defineTool, say, scriptedModel, type AgentState, type ScriptedTurn, type Tool } from '../../lib/index.js'
import type { AgUiEvent } from '../../lib/server/agui/types.js'
import { readSse } from '../../lib/client/sse.js'
import { post, startServer, untilIdle } from './helpers.js'
import { verify } from './agui/helpers.js'

const test = suite('server/agui')

const removed: string[] = []
const remove = defineTool({ name: 'remove', description: 'Removes a file', input: z.object({ path: z.string() }), permission: 'ask', execute: ({ path }) => (removed.push(path), `removed ${path}`) })
const lookup = defineTool({ name: 'lookup', description: 'Looks up', input: z.object({ q: z.string() }), execute: ({ q }) => `found ${q}` })

const serve = (turns: ScriptedTurn[], tools: Tool[] = [], extra: { chunkDelayMs?: number; maxIters?: number } = {}) =>
  startServer(() => ({ name: 'Friday', tools, ...(extra.maxIters ? { maxIters: extra.maxIters } : {}), model: scriptedModel(turns, { chunkDelayMs: extra.chunkDelayMs ?? 0 }) }))

/** One run through HttpAgent; the events it received, checked by verifyEvents and the schemas. */
const run = async (agent: HttpAgent, params: Parameters<HttpAgent['runAgent']>[0] = {}, onEvent?: (e: BaseEvent) => void) => {
  const events: AgUiEvent[] = []
  let failed: unknown = null
  await agent.runAgent(params, { onEvent: ({ event }) => { events.push(event as unknown as AgUiEvent); onEvent?.(event) } }).catch((error: unknown) => { failed = error })
  await verify(events)
  return { events, failed }
}
const sessionState = async (url: string, id: string) => (await (await fetch(`${url}/sessions/${id}`)).json()) as AgentState

test('a plain answer; the next run sends the whole conversation back and only the new message is appended', async () => {
  const server = await serve([[...say('Hello!', 3)], [...say('Again.')]])
  try {
    const agent = new HttpAgent({ url: `${server.url}/ag-ui`, threadId: 'thread-plain' })
    agent.addMessage({ id: 'u-1', role: 'user', content: 'hi' })
    const first = await run(agent)
    assert.is(first.failed, null)
    assert.equal(first.events.map((e) => e.type), ['RUN_STARTED', 'STEP_STARTED', 'TEXT_MESSAGE_START', 'TEXT_MESSAGE_CONTENT', 'TEXT_MESSAGE_CONTENT', 'TEXT_MESSAGE_CONTENT', 'TEXT_MESSAGE_END', 'STEP_FINISHED', 'RUN_FINISHED'])
    assert.equal(agent.messages.map((m) => [m.role, m.content]), [['user', 'hi'], ['assistant', 'Hello!']])
    agent.addMessage({ id: 'u-2', role: 'user', content: 'more' })
    await run(agent)
    const state = await sessionState(server.url, 'thread-plain')
    assert.equal(state.context.filter((m) => m.role === 'user').map((m) => m.id), ['u-1', 'u-2'])
    assert.is(agent.messages.at(-1)!.content, 'Again.')
  } finally {
    await server.close()
  }
})

test('tools: the call streams and its result arrives as a tool message', async () => {
  const server = await serve([[...say('Looking.'), ...callTool('k-1', 'lookup', { q: 'x' }, 2)], [...say('It is x.')]], [lookup])
  try {
    const agent = new HttpAgent({ url: `${server.url}/ag-ui`, threadId: 'thread-tools' })
    agent.addMessage({ id: 'u-1', role: 'user', content: 'find x' })
    const { events } = await run(agent)
    assert.ok(events.some((e) => e.type === 'TOOL_CALL_START' && e.toolCallId === 'k-1'))
    const tool = agent.messages.find((m) => m.role === 'tool')
    assert.is(tool && tool.content, 'found x')
    assert.is(agent.messages.at(-1)!.content, 'It is x.')
  } finally {
    await server.close()
  }
})

for (const [name, payload, expected] of [
  ['approved', { approved: true }, 'removed /a'],
  ['edited', { approved: true, editedArgs: { path: '/b' } }, 'removed /b'],
  ['denied', { approved: false }, 'denied by user'],
] as const) {
  test(`an approval ${name}: the run ends on an interrupt, the resume runs on without repeating the call`, async () => {
    const server = await serve([[...callTool('r-1', 'remove', { path: '/a' })], [...say('Finished.')]], [remove])
    try {
      const agent = new HttpAgent({ url: `${server.url}/ag-ui`, threadId: `thread-${name}` })
      agent.addMessage({ id: 'u-1', role: 'user', content: 'remove /a' })
      const first = await run(agent)
      assert.equal(first.events.at(-1)!.outcome && (first.events.at(-1)!.outcome as { type: string }).type, 'interrupt')
      assert.equal(agent.pendingInterrupts.map((i) => [i.id, i.reason, i.toolCallId]), [['r-1', 'tool_call', 'r-1']])
      const blocked = await post(`${server.url}/ag-ui`, { threadId: `thread-${name}`, runId: 'run-x', messages: [...agent.messages, { id: 'u-9', role: 'user', content: 'ignore it' }] })
      const refusal: AgUiEvent[] = []
      for await (const message of readSse(blocked)) refusal.push(message.data as AgUiEvent)
      await verify(refusal)
      assert.equal(refusal.map((e) => [e.type, e.code]), [['RUN_ERROR', 'REPLY_PAUSED']], 'new input while interrupts are pending is refused')
      const resumed = await run(agent, { resume: [{ interruptId: 'r-1', status: 'resolved', payload }] })
      assert.not.ok(resumed.events.some((e) => e.type === 'TOOL_CALL_START'))
      const result = resumed.events.find((e) => e.type === 'TOOL_CALL_RESULT')!
      assert.is(result.toolCallId, 'r-1')
      assert.match(String(result.content), expected)
      assert.is(resumed.events.at(-1)!.type, 'RUN_FINISHED')
      const again = await run(agent, { resume: [{ interruptId: 'r-1', status: 'resolved', payload }] })
      assert.equal(again.events.map((e) => e.type), ['RUN_STARTED', 'RUN_FINISHED'], 'a repeated resume changes nothing')
    } finally {
      await server.close()
    }
  })
}

test('a resume that cancels every interrupt ends the paused reply: interrupted results, then RUN_FINISHED{cancelled}', async () => {
  const server = await serve([[...callTool('r-1', 'remove', { path: '/a' })], [...say('Next.')]], [remove])
  try {
    const agent = new HttpAgent({ url: `${server.url}/ag-ui`, threadId: 'thread-cancel' })
    agent.addMessage({ id: 'u-1', role: 'user', content: 'remove /a' })
    await run(agent)
    const cancelled = await run(agent, { resume: [{ interruptId: 'r-1', status: 'cancelled' }] })
    assert.equal(cancelled.events.map((e) => e.type), ['RUN_STARTED', 'TOOL_CALL_RESULT', 'RUN_FINISHED'])
    assert.match(String(cancelled.events[1].content), 'interrupted by the user')
    assert.equal(cancelled.events[2].outcome, { type: 'cancelled' })
    const state = await sessionState(server.url, 'thread-cancel')
    assert.is(state.status, 'idle')
    agent.addMessage({ id: 'u-2', role: 'user', content: 'go on' })
    const next = await run(agent)
    assert.is(next.failed, null, 'the next run is an ordinary new run')
    assert.is(agent.messages.at(-1)!.content, 'Next.')
  } finally {
    await server.close()
  }
})

test('a front-end tool of the run: offered to the model as given, pendingToolCallIds, then the tool message of the next run resumes the reply', async () => {
  const model = scriptedModel([[...callTool('b-1', 'browser', { url: 'https://example.org' })], [...say('The page says hi.')]])
  const server = await startServer(() => ({ name: 'Friday', tools: [lookup], model }))
  try {
    const agent = new HttpAgent({ url: `${server.url}/ag-ui`, threadId: 'thread-front' })
    agent.addMessage({ id: 'u-1', role: 'user', content: 'open it' })
    const parameters = { type: 'object', properties: { url: { type: 'string' } }, required: ['url'] }
    const first = await run(agent, { tools: [{ name: 'browser', description: 'Opens a page', parameters }] })
    assert.equal(model.requests[0].tools.map((t) => t.name), ['lookup', 'browser'])
    assert.equal(model.requests[0].tools[1], { name: 'browser', description: 'Opens a page', input_schema: parameters })
    assert.equal(first.events.at(-1)!.outcome, { type: 'success', pendingToolCallIds: ['b-1'] })
    agent.addMessage({ id: 'tool-1', role: 'tool', toolCallId: 'b-1', content: 'hi' })
    const second = await run(agent)
    assert.is(second.failed, null)
    assert.not.ok(second.events.some((e) => e.type === 'TOOL_CALL_RESULT'), 'the front end\'s own result is not echoed')
    assert.is(agent.messages.at(-1)!.content, 'The page says hi.')
    assert.equal(model.requests[1].tools.map((t) => t.name), ['lookup'], 'the next run offered no front-end tool')
    const result = model.requests[1].messages.at(-1)!.content.find((b) => b.type === 'tool_result')
    assert.is(result && result.type === 'tool_result' && result.output, 'hi')
  } finally {
    await server.close()
  }
})

for (const where of ['text', 'tool call'] as const) {
  test(`abortRun() mid-${where} is the Stop button: the reply ends interrupted and the next run sees a consistent history`, async () => {
    const turns: ScriptedTurn[] = where === 'text'
      ? [[...say('one two three four five six seven eight nine ten', 10)], [...say('Yes?')]]
      : [[...callTool('l-1', 'lookup', { q: 'a long query string here' }, 10)], [...say('Yes?')]]
    const server = await serve(turns, [lookup], { chunkDelayMs: 20 })
    try {
      const threadId = `thread-abort-${where.replace(' ', '-')}`
      const agent = new HttpAgent({ url: `${server.url}/ag-ui`, threadId })
      agent.addMessage({ id: 'u-1', role: 'user', content: 'go' })
      const trigger = where === 'text' ? 'TEXT_MESSAGE_CONTENT' : 'TOOL_CALL_ARGS'
      const started = { at: 0 }
      await run(agent, {}, (e) => {
        if (e.type === trigger && !started.at) {
          started.at = performance.now()
          agent.abortRun()
        }
      })
      const state = await untilIdle(server.url, threadId)
      console.log(`    abortRun mid-${where}: the server's reply ended ${(performance.now() - started.at).toFixed(1)} ms later`)
      assert.is(state.context.at(-1)!.finished_reason, 'interrupted')
      agent.addMessage({ id: 'u-2', role: 'user', content: 'still there?' })
      const next = await run(agent)
      assert.is(next.failed, null, 'the partial history the client kept is accepted')
      assert.is(agent.messages.at(-1)!.content, 'Yes?')
    } finally {
      await server.close()
    }
  })
}

test('a model error and max iterations end the run with RUN_ERROR', async () => {
  const failing = await serve([[...say('Par'), { type: 'fail', error: Object.assign(new Error('invalid key'), { status: 401 }) }]])
  try {
    const agent = new HttpAgent({ url: `${failing.url}/ag-ui`, threadId: 'thread-error' })
    agent.addMessage({ id: 'u-1', role: 'user', content: 'hi' })
    const { events } = await run(agent)
    assert.is(events.at(-1)!.type, 'RUN_ERROR')
    assert.match(String(events.at(-1)!.code), /^model_/)
  } finally {
    await failing.close()
  }
  const looping = await serve([[...callTool('l-1', 'lookup', { q: 'a' })], [...callTool('l-2', 'lookup', { q: 'b' })], [...say('Summary.')]], [lookup], { maxIters: 1 })
  try {
    const agent = new HttpAgent({ url: `${looping.url}/ag-ui`, threadId: 'thread-iters' })
    agent.addMessage({ id: 'u-1', role: 'user', content: 'loop' })
    const { events } = await run(agent)
    assert.equal([events.at(-1)!.type, events.at(-1)!.code], ['RUN_ERROR', 'exceed_max_iters'])
  } finally {
    await looping.close()
  }
})

test('a user message whose content is an object or a number is refused 400 INVALID_INPUT; the model is not called, nothing is logged', async () => {
  let calls = 0
  const server = await startServer(() => ({ name: 'Friday', model: { name: 'counting', async *stream() { calls++; yield { type: 'text' as const, delta: 'no' } } } }))
  try {
    await post(`${server.url}/sessions`, { session_id: 'thread-17' })
    for (const content of [{ text: 'hi' }, 42, null, true]) {
      const response = await post(`${server.url}/ag-ui`, { threadId: 'thread-17', runId: 'r', messages: [{ id: 'm1', role: 'user', content }] })
      assert.is(response.status, 400, JSON.stringify(content))
      const body = (await response.json()) as { code: string; message: string }
      assert.is(body.code, 'INVALID_INPUT')
      assert.match(body.message, 'messages.0')
    }
    assert.is(calls, 0)
    assert.is((await sessionState(server.url, 'thread-17')).seq, 0)
  } finally {
    await server.close()
  }
})

/** A lead whose `research` sub-agent says something, then asks to remove /a, then reports. */
const serveTree = () => startServer(() => ({
  name: 'Lead',
  tools: [agentTool({ name: 'research', description: 'Researches', agent: { name: 'Researcher', tools: [remove], model: scriptedModel([[...say('Looking. ', 3), ...callTool('r-1', 'remove', { path: '/a' })], [...say('Removed it.')]]) } })],
  model: scriptedModel([[...callTool('c-1', 'research', { task: 'clean up' })], [...say('All done.')]]),
}))

for (const [name, status, payload] of [['approved', 'resolved', { approved: true }], ['cancelled', 'cancelled', undefined]] as const) {
  test(`a sub-agent's confirmation is the run's interrupt, with its session; a resume ${name} answers it where it waits`, async () => {
    const server = await serveTree()
    removed.length = 0
    try {
      const threadId = `thread-tree-${name}`
      const agent = new HttpAgent({ url: `${server.url}/ag-ui`, threadId })
      agent.addMessage({ id: 'u-1', role: 'user', content: 'clean up' })
      const first = await run(agent)
      assert.ok(first.events.some((e) => e.type === 'TOOL_CALL_START' && e.toolCallName === 'research'))
      assert.not.ok(first.events.some((e) => e.type === 'TEXT_MESSAGE_START'), "the sub-agent's own messages are not the lead's")
      assert.equal((first.events.at(-1)!.outcome as { type: string }).type, 'interrupt')
      const roots: Agent[] = []
      server.hub.onAgent!((a) => void (a.session_id === threadId && roots.push(a)))()
      const child_session_id = roots[0].children()[0].session_id
      assert.equal(agent.pendingInterrupts.map((i) => [i.id, i.reason, i.toolCallId, (i as { metadata?: { session_id?: unknown } }).metadata?.session_id]), [[`${child_session_id}/r-1`, 'tool_call', 'r-1', child_session_id]])
      const refused = await post(`${server.url}/ag-ui`, { threadId, runId: 'run-partial', messages: agent.messages, resume: [{ interruptId: 'r-2', status: 'resolved' }] })
      const refusal: AgUiEvent[] = []
      for await (const message of readSse(refused)) refusal.push(message.data as AgUiEvent)
      assert.equal(refusal.map((e) => [e.type, e.code]), [['RUN_ERROR', 'INVALID_INPUT']], 'a resume must answer the open interrupts')
      const resumed = await run(agent, { resume: [{ interruptId: `${child_session_id}/r-1`, status, ...(payload ? { payload } : {}) }] })
      assert.is(resumed.failed, null)
      const result = resumed.events.find((e) => e.type === 'TOOL_CALL_RESULT')!
      assert.is(result.toolCallId, 'c-1', "the lead's agent tool call gets the sub-agent's outcome")
      if (status === 'resolved') {
        assert.equal(removed, ['/a'])
        assert.is(result.content, 'Looking. Removed it.', "the sub-agent's text, before and after its pause, is the call's result")
        assert.equal(resumed.events.at(-1), { type: 'RUN_FINISHED', threadId, runId: resumed.events[0].runId })
        assert.is(agent.messages.at(-1)!.content, 'All done.')
        const again = await run(agent, { resume: [{ interruptId: `${child_session_id}/r-1`, status, payload }] })
        assert.equal(again.events.map((e) => e.type), ['RUN_STARTED', 'RUN_FINISHED'], "a repeated resume of a sub-agent's interrupt changes nothing")
        assert.equal(removed, ['/a'])
      } else {
        assert.equal(removed, [])
        assert.equal(resumed.events.at(-1)!.outcome, { type: 'cancelled' })
      }
      assert.is((await untilIdle(server.url, threadId)).status, 'idle')
    } finally {
      await server.close()
    }
  })
}

test("a sub-agent's external call is an input_required interrupt; the resume's payload is its result", async () => {
  const pick = defineTool({ name: 'pick', description: 'A person picks a colour', input: z.object({ palette: z.string() }), external: true })
  const server = await startServer(() => ({
    name: 'Lead',
    tools: [agentTool({ name: 'research', description: 'Researches', agent: () => ({ name: 'Researcher', tools: [pick], model: scriptedModel([[...callTool('p-1', 'pick', { palette: 'warm' })], (request) => say(JSON.stringify(request.messages.at(-1)!.content.at(-1)).includes('"state":"success"') ? 'A fine colour.' : 'No colour.')]) }) })],
    model: scriptedModel([[...callTool('c-1', 'research', { task: 'pick one' })], [...say('All done.')]]),
  }))
  try {
    const threadId = 'thread-tree-external'
    const agent = new HttpAgent({ url: `${server.url}/ag-ui`, threadId })
    agent.addMessage({ id: 'u-1', role: 'user', content: 'pick' })
    const first = await run(agent)
    assert.equal((first.events.at(-1)!.outcome as { type: string }).type, 'interrupt')
    const [interrupt] = agent.pendingInterrupts as { id: string; reason: string; toolCallId?: string; metadata?: { session_id?: string } }[]
    assert.equal([interrupt.id, interrupt.reason, interrupt.toolCallId], [`${interrupt.metadata?.session_id}/p-1`, 'input_required', 'p-1'])
    assert.type(interrupt.metadata?.session_id, 'string')
    const resumed = await run(agent, { resume: [{ interruptId: interrupt.id, status: 'resolved', payload: { output: 'amber' } }] })
    assert.is(resumed.failed, null)
    assert.is(resumed.events.find((e) => e.type === 'TOOL_CALL_RESULT')!.content, 'A fine colour.')
    assert.is(agent.messages.at(-1)!.content, 'All done.')
    const roots: Agent[] = []
    server.hub.onAgent!((a) => void (a.session_id === threadId && roots.push(a)))()
    const given = roots[0].children()[0].state.context.flatMap((m) => m.content).find((b) => b.type === 'tool_result' && b.id === 'p-1')
    assert.is(given?.type === 'tool_result' && given.output, 'amber', "the payload is the sub-agent's call's result")
  } finally {
    await server.close()
  }
})

test.run()
