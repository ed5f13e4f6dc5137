// createServer({ a2a: true }) on real HTTP, driven by @a2a-js/sdk's own client: the card, a
// blocking send, a stream (one artifact, append chunks, the final status with the text), a second
// task in the same context, get and list, cancel mid-stream (the log ends REPLY_END(interrupted)),
// and resubscribing after the stream was cut (the task went on meanwhile).
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { TaskState } from '@a2a-js/sdk'
import { defineTool, say, scriptedModel, type AgentState } from '../../../lib/index.js'
import { z } from 'zod'
import { startServer, type AgentFactory } from '../helpers.js'
import { artifactText, byId, listRequest, request, sdkClient, streamJson, taskJson, text, type Json } from './helpers.js'

const test = suite('server/a2a/serve')

const FINAL = 'Hello there, how are you today?'
const chatty = (chunkDelayMs = 0, pieces = 8): AgentFactory => () => ({
  name: 'Friday', description: 'Says hello.', model: scriptedModel([[...say(FINAL, pieces)]], { chunkDelayMs, onExhausted: 'repeat-last' }),
  tools: [defineTool({ name: 'lookup', description: 'Looks a word up', input: z.object({ word: z.string() }), execute: () => 'found' })],
})
const stateOf = async (url: string, id: string) => (await (await fetch(`${url}/sessions/${id}`)).json()) as AgentState

test('the card names the JSON-RPC interface (A2A 1.0), streaming, and one skill per tool of the agent', async () => {
  const server = await startServer(chatty(), { a2a: true })
  try {
    const card = (await (await fetch(`${server.url}/.well-known/agent-card.json`)).json()) as Json
    assert.is(card.name, 'Friday')
    assert.is(card.description, 'Says hello.')
    assert.equal(card.supportedInterfaces, [{ url: `${server.url}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }])
    assert.equal(card.capabilities, { streaming: true, pushNotifications: false })
    assert.equal(card.skills.map((s: Json) => s.id), ['lookup'])
    assert.is(card.securitySchemes, undefined, 'no token: no scheme')
    const client = await sdkClient(server.url)
    assert.is(client.protocolVersion, '1.0')
  } finally {
    await server.close()
  }
})

test('SendMessage (blocking) returns the completed task: the context is a new session, the final text in the status and the artifact', async () => {
  const server = await startServer(chatty(), { a2a: true })
  try {
    const client = await sdkClient(server.url)
    const result = await client.sendMessage(text('hi'))
    const task = taskJson(result)
    assert.is(task.status.state, 'TASK_STATE_COMPLETED')
    assert.is(task.status.message.parts[0].text, FINAL)
    assert.is(artifactText(task), FINAL)
    assert.is(task.history[0].parts[0].text, 'hi')
    const state = await stateOf(server.url, task.contextId)
    assert.is(state.status, 'idle', 'the contextId is a stored session')
    assert.is(task.id, `${task.contextId}:${state.reply_id}`)
    // A second message in the context is a new task of the same session.
    const second = taskJson(await client.sendMessage(request([{ text: 'again' }], { contextId: task.contextId })))
    assert.is(second.contextId, task.contextId)
    assert.is.not(second.id, task.id)
    assert.is(taskJson(await client.getTask(byId(task.id).get)).status.state, 'TASK_STATE_COMPLETED')
    const list = await client.listTasks(listRequest({ contextId: task.contextId }))
    assert.equal(list.tasks.map((t) => t.id), [second.id, task.id], 'newest first')
    assert.is(list.tasks[0].status?.state, TaskState.TASK_STATE_COMPLETED)
    const all = await client.listTasks(listRequest())
    assert.is(all.tasks.length, 2)
  } finally {
    await server.close()
  }
})

test('SendStreamingMessage: the task, then one artifact in append chunks, then COMPLETED with the final text', async () => {
  const server = await startServer(chatty(), { a2a: true })
  try {
    const client = await sdkClient(server.url)
    const events: Json[] = []
    for await (const event of client.sendMessageStream(text('hi'))) events.push(streamJson(event))
    assert.ok(events[0].task, 'the task first')
    assert.is(events[0].task.status.state, 'TASK_STATE_WORKING')
    const chunks = events.filter((e) => e.artifactUpdate)
    assert.is(chunks.length, 8)
    assert.is(chunks[0].artifactUpdate.append, undefined)
    assert.ok(chunks.slice(1).every((c) => c.artifactUpdate.append === true))
    assert.ok(chunks.every((c) => c.artifactUpdate.artifact.artifactId === chunks[0].artifactUpdate.artifact.artifactId), 'one artifact per reply')
    assert.is(chunks.map((c) => c.artifactUpdate.artifact.parts[0].text).join(''), FINAL)
    const last = events.at(-1)!
    assert.is(last.statusUpdate.status.state, 'TASK_STATE_COMPLETED')
    assert.is(last.statusUpdate.status.message.parts[0].text, FINAL)
  } finally {
    await server.close()
  }
})

test('CancelTask mid-stream interrupts the reply at once: the stream ends CANCELED and the log ends REPLY_END(interrupted)', async () => {
  const server = await startServer(chatty(30, 40), { a2a: true })
  try {
    const client = await sdkClient(server.url)
    const events: Json[] = []
    let cancelled: Json | null = null
    for await (const event of client.sendMessageStream(text('hi'))) {
      const json = streamJson(event)
      events.push(json)
      if (json.artifactUpdate && !cancelled) cancelled = taskJson(await client.cancelTask(byId(json.artifactUpdate.taskId).cancel))
    }
    assert.is(cancelled!.status.state, 'TASK_STATE_CANCELED')
    assert.is(events.at(-1)!.statusUpdate.status.state, 'TASK_STATE_CANCELED')
    assert.ok(events.filter((e) => e.artifactUpdate).length < 40, 'stopped before the model finished')
    const { contextId } = events[0].task
    const state = await stateOf(server.url, contextId)
    assert.is(state.status, 'idle')
    const log = (await server.hub.session(contextId).follow().pipe((await import('rxjs')).take(state.seq), (await import('rxjs')).toArray()).toPromise())!
    const end = log.filter((e) => e.type === 'REPLY_END')
    assert.equal(end.map((e) => (e as { finished_reason: string }).finished_reason), ['interrupted'])
    const again = await client.cancelTask(byId(events[0].task.id).cancel).then(() => null, (e: { code?: number; envelopeCode?: number }) => e)
    assert.ok(again, 'an ended task is not cancelable')
  } finally {
    await server.close()
  }
})

test('a stream cut by the client does not stop the task; SubscribeToTask gives the task, then what follows, to the end', async () => {
  const server = await startServer(chatty(25, 20), { a2a: true })
  try {
    const client = await sdkClient(server.url)
    const cut = new AbortController()
    let taskId = ''
    try {
      for await (const event of client.sendMessageStream(text('hi'), { signal: cut.signal })) {
        const json = streamJson(event)
        if (json.task) taskId = json.task.id
        if (json.artifactUpdate) cut.abort()
      }
    } catch {
      // the aborted read
    }
    assert.ok(taskId)
    const events: Json[] = []
    for await (const event of client.resubscribeTask(byId(taskId).subscribe)) events.push(streamJson(event))
    assert.ok(events[0].task, 'the task first')
    assert.is(events[0].task.status.state, 'TASK_STATE_WORKING')
    const last = events.at(-1)!
    assert.is(last.statusUpdate.status.state, 'TASK_STATE_COMPLETED')
    assert.is(last.statusUpdate.status.message.parts[0].text, FINAL)
    const sofar = artifactText(events[0].task)
    const rest = events.filter((e) => e.artifactUpdate).map((e) => e.artifactUpdate.artifact.parts[0].text).join('')
    assert.is(sofar + rest, FINAL, 'the task so far plus what follows is the whole text, nothing twice')
    const done = await client.resubscribeTask(byId(taskId).subscribe).next().then(() => null, (e: unknown) => e)
    assert.ok(done, 'an ended task cannot be subscribed to')
  } finally {
    await server.close()
  }
})

test('several subscribers of a working task each get the task so far and everything after it', async () => {
  const server = await startServer(chatty(20, 20), { a2a: true })
  try {
    const client = await sdkClient(server.url)
    const started = taskJson(await client.sendMessage(request([{ text: 'hi' }], { returnImmediately: true })))
    assert.is(started.status.state, 'TASK_STATE_WORKING', 'returnImmediately answers with the task at once')
    const read = async () => {
      const events: Json[] = []
      for await (const event of client.resubscribeTask(byId(started.id).subscribe)) events.push(streamJson(event))
      return artifactText(events[0].task) + events.filter((e) => e.artifactUpdate).map((e) => e.artifactUpdate.artifact.parts[0].text).join('')
    }
    const [a, b] = await Promise.all([read(), read()])
    assert.is(a, FINAL)
    assert.is(b, FINAL)
  } finally {
    await server.close()
  }
})

test.run()
