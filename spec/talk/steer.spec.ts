// Issue 30, points 1 and 7: a steer joins the running reply at its next step boundary (after the
// model call and its batch's tools), as a user message after the tool results; the reply's message
// splits there (the part before keeps the reply_id, a continuation names it); a steer during the
// final answer makes one more model call; steers are held while paused; while idle a steer starts a reply.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { callTool, checkLog, replay, say, textOf, UserConfirmResultEvent, type Msg, type OutputEvent } from '../../lib/index.js'
import { checkInvariants, makeAgent, probe, slowTool, types } from '../helpers/fixtures.js'
import { askingTool } from '../helpers/hitl.js'

const test = suite('talk/steer')
const delay = (ms: number) => ({ type: 'delay' as const, ms })
const userTexts = (messages: Msg[]) => messages.filter((m) => m.role === 'user').map(textOf)
const strict = (log: readonly unknown[]) => {
  const events = JSON.parse(JSON.stringify(log))
  assert.equal(checkLog(events).violations, [], 'checkLog finds nothing')
  return replay(events, undefined, { strict: true })
}

test('a steer sent while the model streams joins after the tool results of that step, before the next model call', async () => {
  const p = probe()
  const { agent, model } = makeAgent([
    [...say('Looking.'), delay(30), ...callTool('c-1', 'slow', { x: 'a' })],
    [...say('Done, and the API stays.')],
  ], [slowTool(p)])
  const seen: OutputEvent[] = []
  let steered: { id: string; reply_id: string | null } | null = null
  for await (const event of agent.replyStream('Refactor the parser')) {
    seen.push(event)
    if (event.type === 'TEXT_BLOCK_END' && !steered) steered = await agent.steer('Keep the public API unchanged')
  }
  const reply_id = agent.state.context.find((m) => m.role === 'assistant')!.id
  assert.is(steered!.reply_id, reply_id, 'the steer names the reply it joins')
  assert.is(model.requests.length, 2, 'no extra model call: the steer reaches the next one')
  const second = model.requests[1].messages
  assert.equal(second.slice(-2).map((m) => m.role), ['assistant', 'user'], 'the steer follows the assistant part that holds the results')
  assert.equal(second.at(-2)!.content.map((b) => b.type), ['text', 'tool_call', 'tool_result'])
  assert.is(textOf(second.at(-1)!), 'Keep the public API unchanged')
  assert.is(model.requests[0].messages.length, 2, 'the first request never held the steer')
  // The context: the part before the steer keeps the reply_id, the continuation names the reply.
  const context = agent.state.context
  assert.equal(context.map((m) => m.role), ['user', 'assistant', 'user', 'assistant'])
  assert.is(context[1].id, reply_id)
  assert.is(context[2].id, steered!.id)
  assert.is.not(context[3].id, reply_id)
  assert.equal(context[3].metadata, { reply_id })
  assert.is(textOf(context[3]), 'Done, and the API stays.')
  assert.equal(types(seen).filter((t) => t === 'REPLY_START' || t === 'REPLY_END'), ['REPLY_START', 'REPLY_END'], 'one reply')
  assert.equal(agent.state.steers, [])
  checkInvariants(agent)
  strict(agent.log)
})

test('a steer during the final answer keeps the reply going for one more model call that sees it', async () => {
  const { agent, model } = makeAgent([[...say('All done'), delay(30), ...say('.')], [...say('Changelog updated too.')]], [])
  const run = agent.reply('Fix the bug')
  await new Promise((resolve) => setTimeout(resolve, 10))
  await agent.steer('Also update the changelog')
  const reply = await run
  assert.is(model.requests.length, 2)
  assert.is(textOf(model.requests[1].messages.at(-1)!), 'Also update the changelog')
  assert.is(reply.text, 'Changelog updated too.')
  assert.is(reply.finished_reason, 'completed')
  checkInvariants(agent)
  strict(agent.log)
})

test('several steers arrive in order, in one step', async () => {
  const p = probe()
  const { agent, model } = makeAgent([[...callTool('c-1', 'slow', { x: 'a' })], [...say('ok')]], [slowTool(p, { ms: 40 })])
  const run = agent.reply('go')
  await new Promise((resolve) => setTimeout(resolve, 10))
  await agent.steer('first')
  await agent.steer('second')
  await run
  assert.equal(userTexts(model.requests[1].messages), ['go', 'first', 'second'])
  assert.equal(agent.log.filter((e) => e.type === 'STEER_JOINED').length, 1)
  strict(agent.log)
})

test('a steer while paused is held until the answer resumes the reply, then joins after that step', async () => {
  const p = probe()
  const { agent, model } = makeAgent([[...callTool('c-1', 'delete_file', { path: '/x' })], [...say('Deleted, noted.')]], [askingTool(p)])
  await agent.reply('delete /x')
  assert.is(agent.state.status, 'paused')
  await agent.steer('and tell me when done')
  assert.is(agent.state.status, 'paused', 'the steer does not resume the paused reply')
  assert.is(agent.state.steers.length, 1)
  assert.is(model.requests.length, 1)
  const call = agent.state.waiting_for[0]
  await agent.reply(UserConfirmResultEvent({ reply_id: agent.state.reply_id!, confirm_results: [{ confirmed: true, tool_call: call }] }))
  assert.is(model.requests.length, 2)
  assert.equal(userTexts(model.requests[1].messages), ['delete /x', 'and tell me when done'])
  assert.is(model.requests[1].messages.at(-2)!.content.at(-1)!.type, 'tool_result', 'after the result of the answered call')
  checkInvariants(agent)
  strict(agent.log)
})

test('a steer while idle starts a reply like reply(input)', async () => {
  const { agent } = makeAgent([[...say('Hello!')]], [])
  const result = await agent.steer('hi')
  assert.is(result.reply_id, null)
  await new Promise((resolve) => setTimeout(resolve, 10))
  assert.is(agent.state.status, 'idle')
  assert.is(textOf(agent.state.context.at(-1)!), 'Hello!')
  assert.is(agent.state.context[0].id, result.id)
  strict(agent.log)
})

test('a steer the reply ends before joining (an error, the last iteration) starts the next reply', async () => {
  const p = probe()
  const { agent, model } = makeAgent([[...callTool('c-1', 'slow', { x: 'a' })], [...say('next reply')]], [slowTool(p, { ms: 30 })], { maxIters: 1 })
  const run = agent.reply('go')
  await new Promise((resolve) => setTimeout(resolve, 10))
  await agent.steer('late')
  assert.is((await run).finished_reason, 'exceed_max_iters')
  await new Promise((resolve) => setTimeout(resolve, 10))
  assert.is(model.requests.length, 2)
  assert.equal(userTexts(agent.state.context), ['go', 'late'])
  assert.is(textOf(agent.state.context.at(-1)!), 'next reply')
  strict(agent.log)
})

test('steer refuses what is not a message with INVALID_INPUT and records nothing', async () => {
  const { agent } = makeAgent([[...say('x')]], [])
  const before = agent.log.length
  for (const bad of [42, '', { type: 'USER_INTERRUPT', reply_id: 'r', id: 'i', created_at: 'x', metadata: {} }]) {
    try {
      await agent.steer(bad as never)
      assert.unreachable()
    } catch (error) {
      assert.is((error as { code?: string }).code, 'INVALID_INPUT')
    }
  }
  assert.is(agent.log.length, before)
})

test.run()
