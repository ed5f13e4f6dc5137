// Issue 30, points 2, 3 and 4: the queue (starts the next reply, unqueue, handed back by a person's
// Stop unless keepQueue, kept by a crash and started by the next owner, kept by a fork that starts
// nothing), the gentle stop (what runs finishes with real results, nothing new starts), and a
// message sent while paused (whilePaused: 'interrupt' | 'queue').
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import {
  callTool, checkLog, createAgent, fork, INTERRUPTION_REMINDER, memoryLog, outputText, replay, say, scriptedModel, textOf,
  type AgentEvent, type Msg, type ToolResultBlock,
} from '../../lib/index.js'
import { checkInvariants, makeAgent, probe, slowTool } from '../helpers/fixtures.js'
import { askingTool } from '../helpers/hitl.js'

const test = suite('talk/queue')
const tick = (ms = 10) => new Promise((resolve) => setTimeout(resolve, ms))
const userTexts = (messages: Msg[]) => messages.filter((m) => m.role === 'user').map(textOf)
const strict = (log: readonly unknown[]) => {
  const events = JSON.parse(JSON.stringify(log))
  assert.equal(checkLog(events).violations, [], 'checkLog finds nothing')
  return replay(events, undefined, { strict: true })
}
const results = (msg: Msg) => msg.content.filter((b): b is ToolResultBlock => b.type === 'tool_result').map((r) => [r.id, r.state, outputText(r.output)])
const codeOf = async (run: () => Promise<unknown>) => run().then(() => 'resolved', (error: { code?: string }) => error.code)

test('queue() lists the message in state.queue and starts it as the next reply when this one ends', async () => {
  const p = probe()
  const { agent, model } = makeAgent([[...callTool('c-1', 'slow', { x: 'a' })], [...say('Parser done.')], [...say('Changelog done.')]], [slowTool(p, { ms: 30 })])
  const run = agent.reply('Refactor the parser')
  await tick()
  const queued = await agent.queue('Then update the changelog')
  assert.equal(queued.position, 0)
  assert.equal(agent.state.queue.map((e) => [e.id, textOf(e.msg)]), [[queued.id, 'Then update the changelog']])
  assert.type(agent.state.queue[0].queued_at, 'string')
  assert.is((await run).text, 'Parser done.')
  await tick()
  assert.equal(agent.state.queue, [])
  assert.is(model.requests.length, 3)
  assert.equal(userTexts(agent.state.context), ['Refactor the parser', 'Then update the changelog'])
  assert.is(agent.state.context[2].id, queued.id, 'the queued message is the one that started')
  assert.is(textOf(agent.state.context.at(-1)!), 'Changelog done.')
  checkInvariants(agent)
  strict(agent.log)
})

test('queue() while idle starts at once; unqueue() takes a message back; another id is UNKNOWN_QUEUED', async () => {
  const { agent, model } = makeAgent([[{ type: 'delay', ms: 30 }, ...say('one')], [...say('three')]], [])
  const first = await agent.queue('one')
  assert.is(first.position, 0)
  assert.is(agent.state.status, 'running', 'started at once')
  const two = await agent.queue('two')
  const three = await agent.queue('three')
  assert.equal([two.position, three.position], [0, 1])
  await agent.unqueue(two.id)
  assert.equal(agent.state.queue.map((e) => e.id), [three.id])
  const before = agent.log.length
  assert.is(await codeOf(() => agent.unqueue(two.id)), 'UNKNOWN_QUEUED')
  assert.is(await codeOf(() => agent.unqueue('nope')), 'UNKNOWN_QUEUED')
  assert.is(agent.log.length, before, 'a refused unqueue records nothing')
  while (agent.state.status !== 'idle' || agent.state.queue.length) await tick()
  assert.is(model.requests.length, 2)
  assert.equal(userTexts(agent.state.context), ['one', 'three'])
  strict(agent.log)
})

test('interrupt() stops the reply and hands the queue back (an event, listed in its result); nothing starts', async () => {
  const p = probe()
  const { agent, model } = makeAgent([[...callTool('c-1', 'slow', { x: 'a' })]], [slowTool(p, { ms: 50 })])
  const run = agent.reply('go')
  await tick()
  const a = await agent.queue('A')
  const s = await agent.steer('S')
  const result = await agent.interrupt()
  assert.is((await run).finished_reason, 'interrupted')
  assert.equal(result.queue.map((e) => e.id).sort(), [a.id, s.id].sort())
  assert.equal(result.queue.map((e) => textOf(e.msg)).sort(), ['A', 'S'])
  const returned = agent.log.filter((e) => e.type === 'QUEUE_RETURNED')
  assert.is(returned.length, 1)
  assert.equal(agent.state.queue, [])
  assert.equal(agent.state.steers, [])
  await tick()
  assert.is(model.requests.length, 1, 'nothing started')
  assert.is(agent.state.status, 'idle')
  strict(agent.log)
})

test('a Stop by leaving the loop hands the queue back too; interrupt({ keepQueue: true }) starts the first kept message', async () => {
  const p = probe()
  const { agent, model } = makeAgent([[...callTool('c-1', 'slow', { x: 'a' })], [...callTool('c-2', 'slow', { x: 'b' })], [...say('kept ran')]], [slowTool(p, { ms: 40 })])
  for await (const event of agent.replyStream('go')) {
    if (event.type === 'TOOL_RESULT_START') {
      await agent.queue('dropped')
      break
    }
  }
  assert.equal(agent.state.queue, [])
  assert.is(agent.log.filter((e) => e.type === 'QUEUE_RETURNED').length, 1)
  const run = agent.reply('again')
  await tick()
  await agent.queue('kept')
  const result = await agent.interrupt({ keepQueue: true })
  assert.equal(result.queue, [])
  await run
  while (agent.state.status !== 'idle') await tick()
  assert.is(model.requests.length, 3)
  assert.equal(userTexts(agent.state.context), ['go', 'again', 'kept'])
  strict(agent.log)
})

test('a crash keeps the queue: the next owner closes the cut reply, then starts the queue', async () => {
  const p = probe()
  const log = memoryLog()
  const first = createAgent({ name: 'a', model: scriptedModel([[...callTool('c-1', 'slow', { x: 'a' })]]), tools: [slowTool(p, { ms: 200 })], log })
  void first.reply('go').catch(() => {})
  await tick()
  await first.queue('after the crash')
  // The process dies: a new owner opens the same events (the old agent is never touched again).
  const cut = memoryLog(JSON.parse(JSON.stringify(log.events)) as AgentEvent[])
  const model = scriptedModel([[...say('resumed')]])
  const next = createAgent({ name: 'a', model, tools: [slowTool(p)], log: cut })
  while (next.state.status !== 'idle' || next.state.queue.length) await tick()
  assert.equal(cut.events.filter((e) => e.type === 'QUEUE_RETURNED'), [], 'a crash hands nothing back')
  assert.is(model.requests.length, 1)
  assert.equal(userTexts(next.state.context), ['go', 'after the crash'])
  assert.equal(results(next.state.context[1]), [['c-1', 'interrupted', INTERRUPTION_REMINDER]])
  strict(cut.events)
  await first.close()
})

test('a fork at a seq keeps the queue as it was then and starts nothing by itself', async () => {
  const p = probe()
  const { agent } = makeAgent([[...callTool('c-1', 'slow', { x: 'a' })], [...say('done')], [...say('q')]], [slowTool(p, { ms: 30 })])
  const run = agent.reply('go')
  await tick()
  const q = await agent.queue('queued')
  const at = agent.log.length
  await run
  const model = scriptedModel([[...say('never')]])
  const forked = fork(agent, at, { name: 'f', model, tools: [slowTool(p)] })
  await tick(20)
  assert.equal(forked.state.queue.map((e) => e.id), [q.id])
  assert.is(model.requests.length, 0, 'the fork starts nothing')
  assert.is(forked.state.status, 'idle')
})

test('interrupt({ when: "step" }): the running tool finishes with its real result, nothing new starts, every call is answered', async () => {
  const p = probe()
  const { agent, model } = makeAgent([[...callTool('c-1', 'slow', { x: 'a' }), ...callTool('c-2', 'slow', { x: 'b' })], [...say('never')]], [slowTool(p, { ms: 40 })])
  const run = agent.reply('go')
  await tick()
  const stopping = agent.interrupt({ when: 'step' })
  const reply = await run
  await stopping
  assert.is(reply.finished_reason, 'interrupted')
  assert.equal(p.finished, ['c-1'], 'the running tool finished')
  assert.equal(p.aborted, [], 'nothing was aborted')
  assert.equal(p.started.map((s) => s.id), ['c-1'], 'the next call never started')
  assert.equal(results(agent.state.context.at(-1)!), [['c-1', 'success', 'slow:a'], ['c-2', 'interrupted', INTERRUPTION_REMINDER]])
  assert.is(model.requests.length, 1)
  assert.ok(agent.log.some((e) => e.type === 'STOP_REQUESTED'))
  checkInvariants(agent)
  strict(agent.log)
})

test('a gentle stop lets the model call streaming now finish; a second interrupt() during the wait stops at once', async () => {
  const p = probe()
  const { agent, model } = makeAgent([[...say('Working'), { type: 'delay', ms: 20 }, ...callTool('c-1', 'slow', { x: 'a' })]], [slowTool(p, { ms: 500 })])
  const run = agent.reply('go')
  await tick(5)
  void agent.interrupt({ when: 'step' })
  await run
  const msg = agent.state.context.at(-1)!
  assert.is(textOf(msg), 'Working')
  assert.equal(results(msg), [['c-1', 'interrupted', INTERRUPTION_REMINDER]])
  assert.equal(p.started, [], 'the tool was never started')
  assert.is(agent.log.filter((e) => e.type === 'MODEL_CALL_END' && e.finished_reason === 'completed').length, 1, 'the model call completed')
  strict(agent.log)

  const second = makeAgent([[...callTool('c-1', 'slow', { x: 'a' })]], [slowTool(p, { ms: 500 })]).agent
  const again = second.reply('go')
  await tick()
  const gentle = second.interrupt({ when: 'step' })
  await tick()
  assert.is(second.state.status, 'running', 'the gentle stop waits for the tool')
  await second.interrupt()
  await gentle
  assert.is((await again).finished_reason, 'interrupted')
  assert.ok(p.aborted.includes('c-1'), 'the second interrupt stopped the tool at once')
  strict(second.log)
  assert.is(model.requests.length, 1)
})

test('a gentle stop of a paused reply is a plain interrupt; of an idle agent nothing', async () => {
  const p = probe()
  const { agent } = makeAgent([[...callTool('c-1', 'delete_file', { path: '/x' })]], [askingTool(p)])
  const before = agent.log.length
  assert.equal(await agent.interrupt({ when: 'step' }), { queue: [] })
  assert.is(agent.log.length, before)
  await agent.reply('delete')
  await agent.interrupt({ when: 'step' })
  assert.is(agent.state.status, 'idle')
  assert.ok(agent.log.some((e) => e.type === 'USER_INTERRUPT'))
  assert.is(await codeOf(() => agent.interrupt({ when: 'later' as never })), 'INVALID_OPTION')
  strict(agent.log)
})

test('reply(input) on a paused reply: refused by default; whilePaused "interrupt" closes the calls and starts it first; "queue" queues it', async () => {
  const p = probe()
  const { agent, model } = makeAgent([
    [...callTool('c-1', 'delete_file', { path: '/x' })], [...say('new request answered')],
    [...say('queued before ran')], [...callTool('c-2', 'delete_file', { path: '/y' })], [...say('after the approval')], [...say('later answered')],
  ], [askingTool(p)])
  await agent.reply('delete /x')
  assert.is(await codeOf(() => agent.reply('something else')), 'REPLY_PAUSED')
  const earlier = await agent.queue('queued before')
  const reply = await agent.reply('something else', { whilePaused: 'interrupt' })
  assert.is(reply.text, 'new request answered')
  assert.equal(results(agent.state.context[1]), [['c-1', 'interrupted', INTERRUPTION_REMINDER]])
  while (agent.state.status !== 'idle' || agent.state.queue.length) await tick()
  assert.equal(userTexts(agent.state.context), ['delete /x', 'something else', 'queued before'], 'its own message first, the queue behind it')
  assert.ok(agent.state.context.some((m) => m.id === earlier.id))

  await agent.reply('delete /y')
  assert.is(agent.state.status, 'paused')
  const queued = agent.reply('later, please', { whilePaused: 'queue' })
  await tick()
  assert.equal(agent.state.queue.map((e) => textOf(e.msg)), ['later, please'])
  assert.is((await agent.approve(agent.state.waiting_for[0].id)).text, 'after the approval')
  assert.is((await queued).text, 'later answered', 'it resolves when its own reply ends')
  assert.is(model.requests.length, 6)
  strict(agent.log)
})

test.run()
