// Human in the loop over A2A, with @a2a-js/sdk's client: a parked reply is TASK_STATE_INPUT_REQUIRED
// with the `agentlog.waiting` data part; "yes" / "no" or an `agentlog.answer` part sent to the task
// answers it and the task goes on (also when the call waits in a sub-agent); an answer that does
// not fit is refused (-32602) and changes nothing; a parked task can be cancelled.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { z } from 'zod'
import { agentTool, callTool, defineTool, say, scriptedModel, type AgentState } from '../../../lib/index.js'
import { startServer, type AgentFactory } from '../helpers.js'
import { byId, request, sdkClient, streamJson, taskJson, text, type Json } from './helpers.js'

const test = suite('server/a2a/input')

const removed: string[] = []
const remove = defineTool({ name: 'remove', description: 'Removes a file', input: z.object({ path: z.string() }), permission: 'ask', execute: ({ path }) => (removed.push(path), `removed ${path}`) })
const asking: AgentFactory = () => ({ name: 'Friday', tools: [remove], model: scriptedModel([[...callTool('c-1', 'remove', { path: '/a' })], [...say('Done.')]]) })
const stateOf = async (url: string, id: string) => (await (await fetch(`${url}/sessions/${id}`)).json()) as AgentState
const waitingPart = (task: Json) => task.status.message.parts.find((p: Json) => p.data)?.data

test('a reply that asks is INPUT_REQUIRED with the agentlog.waiting part; "yes" to the task approves and the task completes', async () => {
  const server = await startServer(asking, { a2a: true })
  try {
    removed.length = 0
    const client = await sdkClient(server.url)
    const task = taskJson(await client.sendMessage(text('remove /a')))
    assert.is(task.status.state, 'TASK_STATE_INPUT_REQUIRED')
    assert.equal(waitingPart(task), { kind: 'agentlog.waiting', calls: [{ id: 'c-1', session_id: task.contextId, name: 'remove', input: { path: '/a' }, state: 'asking' }] })
    assert.match(task.status.message.parts[0].text, 'approve or deny remove')
    assert.is(taskJson(await client.getTask(byId(task.id).get)).status.state, 'TASK_STATE_INPUT_REQUIRED')
    const done = taskJson(await client.sendMessage(request([{ text: 'yes' }], { taskId: task.id, contextId: task.contextId })))
    assert.is(done.id, task.id, 'the answer continues the same task')
    assert.is(done.status.state, 'TASK_STATE_COMPLETED')
    assert.is(done.status.message.parts[0].text, 'Done.')
    assert.equal(removed, ['/a'])
  } finally {
    await server.close()
  }
})

test('a stream closes at INPUT_REQUIRED; an agentlog.answer denial sent as a stream goes on WORKING, then COMPLETED', async () => {
  const server = await startServer(() => ({ name: 'Friday', tools: [remove], model: scriptedModel([[...callTool('c-1', 'remove', { path: '/a' })], [...say('Not removed.')]]) }), { a2a: true })
  try {
    removed.length = 0
    const client = await sdkClient(server.url)
    const first: Json[] = []
    for await (const event of client.sendMessageStream(text('remove /a'))) first.push(streamJson(event))
    const parked = first.at(-1)!.statusUpdate
    assert.is(parked.status.state, 'TASK_STATE_INPUT_REQUIRED')
    assert.is(waitingPart(parked).calls[0].id, 'c-1')
    const answer = { data: { kind: 'agentlog.answer', tool_call_id: 'c-1', decision: 'deny', reason: 'not that one' } }
    const after: Json[] = []
    for await (const event of client.sendMessageStream(request([answer], { taskId: parked.taskId }))) after.push(streamJson(event))
    assert.is(after[0].task.id, parked.taskId)
    assert.ok(after.some((e) => e.statusUpdate?.status.state === 'TASK_STATE_WORKING'))
    assert.is(after.at(-1)!.statusUpdate.status.state, 'TASK_STATE_COMPLETED')
    assert.is(after.at(-1)!.statusUpdate.status.message.parts[0].text, 'Not removed.')
    assert.equal(removed, [], 'denied: the tool did not run')
  } finally {
    await server.close()
  }
})

test('an answer that does not fit is refused with -32602 naming what is expected, and the log is unchanged', async () => {
  const server = await startServer(asking, { a2a: true })
  try {
    const client = await sdkClient(server.url)
    const task = taskJson(await client.sendMessage(text('remove /a')))
    const before = (await stateOf(server.url, task.contextId)).seq
    for (const parts of [[{ text: 'maybe' }], [{ data: { kind: 'agentlog.answer', tool_call_id: 'nope', decision: 'approve' } }], [{ data: { kind: 'agentlog.answer', tool_call_id: 'c-1', result: 'x' } }], [{ data: { hello: 1 } }]]) {
      const error = await client.sendMessage(request(parts, { taskId: task.id })).then(() => null, (e: { envelopeCode?: number; message: string }) => e)
      assert.ok(error, JSON.stringify(parts))
      assert.is(error!.envelopeCode, -32602)
      assert.match(error!.message, /c-1|agentlog.answer|decision/)
    }
    const inContext = await client.sendMessage(request([{ text: 'new' }], { contextId: task.contextId })).then(() => null, (e: { envelopeCode?: number; message: string }) => e)
    assert.is(inContext!.envelopeCode, -32602, 'a new task in a context whose task waits is refused')
    assert.is((await stateOf(server.url, task.contextId)).seq, before, 'nothing appended')
  } finally {
    await server.close()
  }
})

test('CancelTask on a parked task: CANCELED, and the log ends REPLY_END(interrupted)', async () => {
  const server = await startServer(asking, { a2a: true })
  try {
    const client = await sdkClient(server.url)
    const task = taskJson(await client.sendMessage(text('remove /a')))
    const cancelled = taskJson(await client.cancelTask(byId(task.id).cancel))
    assert.is(cancelled.status.state, 'TASK_STATE_CANCELED')
    const state = await stateOf(server.url, task.contextId)
    assert.is(state.status, 'idle')
    const answer = await client.sendMessage(request([{ text: 'yes' }], { taskId: task.id })).then(() => null, (e: { envelopeCode?: number }) => e)
    assert.is(answer!.envelopeCode, -32602, 'an answer to a task that no longer waits')
  } finally {
    await server.close()
  }
})

test('a confirmation raised in a sub-agent waits in the task with its own session; an agentlog.answer naming it goes on', async () => {
  removed.length = 0
  const helper = agentTool({ name: 'helper', description: 'Does it', agent: { name: 'helper', tools: [remove], model: scriptedModel([[...callTool('k-1', 'remove', { path: '/deep' })], [...say('Helper done.')]]) } })
  const server = await startServer(() => ({ name: 'lead', tools: [helper], model: scriptedModel([[...callTool('h-1', 'helper', { task: 'remove /deep' })], [...say('All done.')]]) }), { a2a: true })
  try {
    const client = await sdkClient(server.url)
    const task = taskJson(await client.sendMessage(text('go')))
    assert.is(task.status.state, 'TASK_STATE_INPUT_REQUIRED')
    const [call] = waitingPart(task).calls
    assert.is(call.id, 'k-1')
    assert.is.not(call.session_id, task.contextId, 'it waits in the sub-agent\'s session')
    const answer = { data: { kind: 'agentlog.answer', tool_call_id: 'k-1', session_id: call.session_id, decision: 'approve' } }
    const done = taskJson(await client.sendMessage(request([answer], { taskId: task.id })))
    assert.is(done.status.state, 'TASK_STATE_COMPLETED')
    assert.is(done.status.message.parts[0].text, 'All done.')
    assert.equal(removed, ['/deep'])
  } finally {
    await server.close()
  }
})

test.run()
