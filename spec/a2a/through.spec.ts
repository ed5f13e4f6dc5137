// Both halves at once, on real HTTP: an @a2a-js/sdk client drives an agentlog server whose lead
// uses a2aAgent against an @a2a-js/sdk server. The far question reaches the near client as the
// lead's INPUT_REQUIRED (a remote_input call with the question), the client's agentlog.answer
// travels on to the far task, and CancelTask on the near task cancels the far one.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { callTool, createAgent, createHub, say, scriptedModel } from '../../lib/index.js'
import { directoryStore } from '../../lib/node.js'
import { a2aAgent } from '../../lib/a2a.js'
import { startServer } from '../server/helpers.js'
import { byId, request, sdkClient, taskJson, text, type Json } from '../server/a2a/helpers.js'
import { startSdkServer, type Step } from './sdkServer.js'

const test = suite('a2a/through')

const asksColor = (turn: number, answer: string): Step[] => (turn === 0 ? [{ text: 'Hmm. ' }, { ask: 'Which color?' }] : [{ text: `Painted ${answer}.` }])

const near = async (farUrl: string) => {
  const painter = await a2aAgent({ url: farUrl, name: 'painter' })
  return startServer(() => ({
    name: 'lead', tools: [painter],
    model: scriptedModel([[...callTool('p-1', 'painter', { task: 'paint the door' })], [...say('The door is painted.')]]),
  }), { a2a: true })
}

test('the far question is the near task\'s INPUT_REQUIRED; an agentlog.answer with the result reaches the far task; the near task completes', async () => {
  const far = await startSdkServer(asksColor)
  const server = await near(far.url)
  try {
    const client = await sdkClient(server.url)
    const task = taskJson(await client.sendMessage(text('paint it')))
    assert.is(task.status.state, 'TASK_STATE_INPUT_REQUIRED')
    const waiting = task.status.message.parts.find((p: Json) => p.data)!.data
    const [call] = waiting.calls
    assert.is(call.name, 'remote_input')
    assert.is(call.state, 'submitted')
    assert.is(call.question, 'Which color?')
    assert.is.not(call.session_id, task.contextId, 'it waits in the proxy\'s session')
    const answer = { data: { kind: 'agentlog.answer', tool_call_id: call.id, session_id: call.session_id, result: 'green' } }
    const done = taskJson(await client.sendMessage(request([answer], { taskId: task.id })))
    assert.is(done.status.state, 'TASK_STATE_COMPLETED')
    assert.is(done.status.message.parts[0].text, 'The door is painted.')
    assert.equal(far.received.map((r) => r.text), ['paint the door', 'green'])
  } finally {
    await server.close()
    await far.close()
  }
})

test('CancelTask on the near task while it waits for the far question cancels the far task', async () => {
  const far = await startSdkServer(asksColor)
  const server = await near(far.url)
  try {
    const client = await sdkClient(server.url)
    const task = taskJson(await client.sendMessage(text('paint it')))
    assert.is(taskJson(await client.cancelTask(byId(task.id).cancel)).status.state, 'TASK_STATE_CANCELED')
    for (let i = 0; i < 200 && far.cancels.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10))
    assert.equal(far.cancels, [far.received[0].taskId])
  } finally {
    await server.close()
    await far.close()
  }
})

test('a lead parked on the far question survives a restart of its hub: the answer, given after, reaches the far task', async () => {
  const far = await startSdkServer(asksColor)
  const dir = mkdtempSync(join(tmpdir(), 'agentlog-a2a-restart-'))
  const painter = await a2aAgent({ url: far.url, name: 'painter' })
  const agent = () => ({ name: 'lead', tools: [painter], model: scriptedModel([[...callTool('p-1', 'painter', { task: 'paint the door' })], [...say('The door is painted.')]]) })
  try {
    const first = createHub({ store: directoryStore(dir), agent })
    const { session_id } = await first.create()
    await first.session(session_id).reply('paint it')
    await first.close()
    // Another process (here: a new hub on the same directory) holds the session now.
    const again = createHub({ store: directoryStore(dir), agent: () => ({ ...agent(), model: scriptedModel([[...say('The door is painted.')]]) }) })
    try {
      const [call] = await again.session(session_id).waiting()
      assert.is(call.name, 'remote_input')
      assert.is(JSON.parse(call.input).question, 'Which color?')
      await again.session(session_id).submitResult(call.id, 'red')
      for (let i = 0; i < 300 && (await again.session(session_id).state()).status !== 'idle'; i++) await new Promise((resolve) => setTimeout(resolve, 10))
      const state = await again.session(session_id).state()
      assert.is(state.status, 'idle')
      assert.is(state.context.at(-1)!.finished_reason, 'completed')
      assert.equal(far.received.map((r) => r.text), ['paint the door', 'red'])
      assert.is(far.received[1].taskId, far.received[0].taskId)
    } finally {
      await again.close()
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
    await far.close()
  }
})

test('a far agentlog server with a token: a2aAgent\'s headers carry it; without them the call fails (401) and the lead goes on', async () => {
  const token = 'far-token-0123'
  const far = await startServer(() => ({ name: 'far', model: scriptedModel([[...say('Hello from far.')]], { onExhausted: 'repeat-last' }) }), { a2a: true, token })
  try {
    const leadWith = async (headers?: Record<string, string>) => createAgent({
      name: 'lead', tools: [await a2aAgent({ url: far.url, name: 'far', ...(headers ? { headers } : {}) })],
      model: scriptedModel([[...callTool('f-1', 'far', { task: 'hi' })], [...say('ok')]]),
    })
    const result = (agent: Awaited<ReturnType<typeof leadWith>>) => agent.state.context.at(-1)!.content.find((b) => b.type === 'tool_result')!
    const allowed = await leadWith({ authorization: `Bearer ${token}` })
    await allowed.reply('go')
    assert.is(result(allowed).state, 'success')
    assert.match(JSON.stringify(result(allowed).output), 'Hello from far.')
    const refused = await leadWith()
    assert.is((await refused.reply('go')).text, 'ok')
    assert.is(result(refused).state, 'error')
  } finally {
    await far.close()
  }
})

test.run()
