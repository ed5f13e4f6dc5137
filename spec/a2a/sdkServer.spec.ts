// a2aAgent against a real @a2a-js/sdk server whose executor the spec writes: the remote text streams
// into the call's result (artifact chunks, or a status message alone), a remote INPUT_REQUIRED parks
// the lead and waits in its tree (its own session, the question), submitResult / approve send the
// answer to the remote task, a Stop cancels the remote task without waiting (honoured or ignored),
// also while parked; TOOL_RESULT_START records the remote context.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { callTool, createAgent, memoryLog, say, scriptedModel, type AgentEvent } from '../../lib/index.js'
import { a2aAgent, remoteContextOf } from '../../lib/a2a.js'
import { startSdkServer, type Step } from './sdkServer.js'
import { byId, sdkClient, taskJson } from '../server/a2a/helpers.js'

const test = suite('a2a/sdkServer')

const lead = async (url: string, turns = [[...callTool('r-1', 'Counter_Agent', { task: 'count to three' })], [...say('Done.')]]) =>
  createAgent({ name: 'lead', model: scriptedModel(turns), tools: [await a2aAgent({ url })] })

const resultOf = (log: readonly AgentEvent[], id: string) => {
  const start = log.find((e) => e.type === 'TOOL_RESULT_START' && e.tool_call_id === id)!
  const text = log.flatMap((e) => (e.type === 'TOOL_RESULT_TEXT_DELTA' && e.tool_call_id === id ? [e.delta] : [])).join('')
  const end = log.find((e) => e.type === 'TOOL_RESULT_END' && e.tool_call_id === id) as { state: string } | undefined
  return { start, text, end }
}
const until = async (check: () => boolean, ms = 5000) => {
  const started = Date.now()
  while (!check()) {
    if (Date.now() - started > ms) throw new Error('timed out')
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

test('the card names the tool; the remote text streams into the call\'s result; TOOL_RESULT_START records the remote context', async () => {
  const remote = await startSdkServer(() => [{ text: 'one ' }, { text: 'two ' }, { text: 'three' }])
  try {
    const agent = await lead(remote.url)
    const reply = await agent.reply('count')
    assert.is(reply.text, 'Done.')
    const { start, text, end } = resultOf(agent.log, 'r-1')
    assert.is(text, 'one two three')
    assert.is(end!.state, 'success')
    const child = start.metadata.child_session_id as string
    assert.equal(start.metadata.remote, { url: remote.url, context_id: remoteContextOf(child) })
    assert.equal(remote.received.map((r) => [r.text, r.contextId]), [['count to three', remoteContextOf(child)]])
    assert.is(agent.children()[0].session_id, child, 'the call runs as a proxy sub-agent in its own session')
  } finally {
    await remote.close()
  }
})

test('a server that sends only a final status message: its text is the result; a failed remote task is an error result', async () => {
  const remote = await startSdkServer((_, text) => (text === 'fail' ? [{ fail: 'out of paper' }] : [{ final: 'forty-two' }]))
  try {
    const agent = await lead(remote.url)
    await agent.reply('ask')
    assert.is(resultOf(agent.log, 'r-1').text, 'forty-two')
    const failing = await lead(remote.url, [[...callTool('r-2', 'Counter_Agent', { task: 'fail' })], [...say('Sorry.')]])
    await failing.reply('ask')
    const failed = resultOf(failing.log, 'r-2')
    assert.is(failed.end!.state, 'error')
    assert.match(failed.text, 'out of paper')
  } finally {
    await remote.close()
  }
})

test('a remote INPUT_REQUIRED parks the lead: the call waits in its own session with the question; submitResult sends the answer and the task goes on', async () => {
  const remote = await startSdkServer((turn, text): Step[] => (turn === 0 ? [{ text: 'Let me see. ' }, { ask: 'Which color?' }] : [{ text: `You chose ${text}.` }]))
  try {
    const agent = await lead(remote.url)
    const parked = await agent.reply('paint')
    assert.is(agent.state.status, 'paused')
    const [call] = parked.waiting_for
    assert.is(call.name, 'remote_input')
    assert.is(call.state, 'submitted')
    assert.is(call.session_id, agent.children()[0].session_id, 'its own session')
    assert.is(JSON.parse(call.input).question, 'Which color?')
    const done = await agent.submitResult(call, 'blue')
    assert.is(done.text, 'Done.')
    assert.equal(remote.received.map((r) => r.text), ['count to three', 'blue'])
    assert.is(remote.received[1].taskId, remote.received[0].taskId, 'the answer went to the same remote task')
    const { text, end } = resultOf(agent.log, 'r-1')
    assert.is(text, 'Let me see. You chose blue.', 'the text before the question, then after the answer')
    assert.is(end!.state, 'success')
  } finally {
    await remote.close()
  }
})

test('Stop while the remote streams: the call is closed at once as interrupted with the text so far, and CancelTask reaches the remote (honoured)', async () => {
  const steps: Step[] = Array.from({ length: 50 }, (_, i) => [{ text: `w${i} ` }, { delay: 20 }]).flat() as Step[]
  const remote = await startSdkServer(() => steps)
  try {
    const agent = await lead(remote.url)
    const run = agent.reply('count')
    await until(() => resultOf(agent.log, 'r-1').text.length > 0 || agent.children()[0]?.log.some((e) => e.type === 'TEXT_BLOCK_DELTA'))
    await agent.interrupt()
    const reply = await run
    assert.is(reply.finished_reason, 'interrupted')
    const { end, text } = resultOf(agent.log, 'r-1')
    assert.is(end!.state, 'interrupted')
    assert.match(text, 'w0')
    await until(() => remote.cancels.length === 1)
    const client = await sdkClient(remote.url)
    let state = ''
    for (let i = 0; i < 100 && state !== 'TASK_STATE_CANCELED'; i++) {
      state = taskJson(await client.getTask(byId(remote.received[0].taskId).get)).status.state
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    assert.is(state, 'TASK_STATE_CANCELED', 'the remote task ended cancelled')
  } finally {
    await remote.close()
  }
})

test('a cancel the remote ignores does not hold the Stop: the call ends interrupted, and the remote\'s late text is dropped', async () => {
  const steps: Step[] = Array.from({ length: 20 }, (_, i) => [{ text: `w${i} ` }, { delay: 15 }]).flat() as Step[]
  const remote = await startSdkServer(() => steps, { honourCancel: false })
  try {
    const agent = await lead(remote.url)
    const run = agent.reply('count')
    await until(() => agent.children()[0]?.log.some((e) => e.type === 'TEXT_BLOCK_DELTA'))
    await agent.interrupt()
    assert.is((await run).finished_reason, 'interrupted')
    const seq = agent.state.seq
    const childSeq = agent.children()[0].state.seq
    await until(() => remote.cancels.length === 1)
    await new Promise((resolve) => setTimeout(resolve, 150)) // the remote goes on streaming meanwhile
    assert.is(agent.state.seq, seq, 'nothing more in the lead\'s log')
    assert.is(agent.children()[0].state.seq, childSeq, 'nothing more in the proxy\'s log')
  } finally {
    await remote.close()
  }
})

test('Stop while the lead waits for the remote\'s question: the remote task is cancelled, the call closed as interrupted', async () => {
  const remote = await startSdkServer(() => [{ text: 'Hmm. ' }, { ask: 'Sure?' }])
  try {
    const agent = await lead(remote.url)
    await agent.reply('go')
    assert.is(agent.state.status, 'paused')
    await agent.interrupt()
    assert.is(agent.state.status, 'idle')
    assert.is(resultOf(agent.log, 'r-1').end!.state, 'interrupted')
    await until(() => remote.cancels.length === 1)
    assert.is(remote.cancels[0], remote.received[0].taskId)
  } finally {
    await remote.close()
  }
})

test('a crash while the remote streams: the next owner of the lead\'s log cancels the remote task it left running (found by the context its TOOL_RESULT_START names)', async () => {
  const steps: Step[] = Array.from({ length: 50 }, (_, i) => [{ text: `w${i} ` }, { delay: 20 }]).flat() as Step[]
  const remote = await startSdkServer(() => steps)
  try {
    const first = await lead(remote.url)
    const run = first.reply('count')
    await until(() => first.children()[0]?.log.some((e) => e.type === 'TEXT_BLOCK_DELTA'))
    // What a crash leaves: the log as it was, its owner gone (this one is not asked to stop anything).
    const cut = [...first.log]
    assert.is(remote.cancels.length, 0)
    const next = createAgent({ name: 'lead', log: memoryLog(cut), model: scriptedModel([]), tools: [await a2aAgent({ url: remote.url })] })
    assert.is(next.state.status, 'idle', 'the cut reply is closed as interrupted')
    await until(() => remote.cancels.length === 1)
    assert.is(remote.cancels[0], remote.received[0].taskId)
    await run.catch(() => undefined)
  } finally {
    await remote.close()
  }
})

test.run()
