// agentlog/redux over a local agent: the slice holds replay(log), commands become agent calls,
// refusals become error actions, and recorded actions dispatched again do nothing.
import type { UnknownAction } from '@reduxjs/toolkit'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createAgent, replay } from '../../lib/index.js'
import { agentActions, selectSession, type RefusedAction } from '../../lib/redux.js'
import { agentOptions, makeStore, session, until } from './helpers.js'

const test = suite('redux/local')

test('a session given in agents is in the slice after a microtask, as replay(log)', async () => {
  const agent = createAgent(agentOptions())
  await agent.reply('hello there')
  const { store, seen } = makeStore({ agents: { alice: agent } })
  await Promise.resolve()
  assert.equal(selectSession(store.getState().agents, 'alice'), replay(agent.log))
  assert.equal(seen.map((a) => a.type), ['agentlog/followed'])
})

test('send streams the reply into the slice; the slice deep-equals replay(log) at its end', async () => {
  const agent = createAgent(agentOptions())
  const { store, seen } = makeStore({ agents: { alice: agent } })
  store.dispatch(agentActions.send({ session_id: 'alice', input: 'one two three' }))
  await until(store, (s) => session(s, 'alice')?.context.length === 2)
  assert.equal(session(store.getState(), 'alice'), replay(agent.log))
  assert.equal(session(store.getState(), 'alice'), agent.state)
  const types = seen.map((a) => a.type)
  assert.is(types[0], 'agentlog/followed')
  assert.is(types[1], 'agentlog/send')
  assert.equal(types.slice(2), agent.log.map((e) => `agentlog/event/${e.type}`))
  assert.ok(types.filter((t) => t === 'agentlog/event/TEXT_BLOCK_DELTA').length >= 3)
})

test('approve and deny answer the paused reply; a call that is not waiting is refused with NOT_ASKING or the like', async () => {
  const agent = createAgent(agentOptions())
  const { store, seen } = makeStore({ agents: { alice: agent } })
  store.dispatch(agentActions.send({ session_id: 'alice', input: 'please ask' }))
  await until(store, (s) => session(s, 'alice')?.status === 'paused')
  const [call] = session(store.getState(), 'alice')!.waiting_for
  store.dispatch(agentActions.approve({ session_id: 'alice', call: call.id }))
  await until(store, (s) => session(s, 'alice')?.status === 'idle')
  assert.ok(agent.log.some((e) => e.type === 'TOOL_RESULT_END' && e.state === 'success'))
  store.dispatch(agentActions.deny({ session_id: 'alice', call: call.id }))
  await until(store, () => seen.some((a) => a.type === 'agentlog/refused'))
  const refusal = seen.find((a) => a.type === 'agentlog/refused') as RefusedAction
  assert.is(refusal.error, true)
  assert.type(refusal.payload.code, 'string')
  assert.is(refusal.meta.command, 'agentlog/deny')
  assert.equal(session(store.getState(), 'alice'), replay(agent.log))
})

test('stop ends a streaming reply at once: REPLY_END interrupted, the slice as the log', async () => {
  const agent = createAgent(agentOptions())
  const { store } = makeStore({ agents: { alice: agent } })
  store.dispatch(agentActions.send({ session_id: 'alice', input: 'slow a b c d e f g h i j k l m n o p q r s t' }))
  await until(store, (s) => (session(s, 'alice')?.reply_msg?.content.length ?? 0) > 0)
  store.dispatch(agentActions.stop({ session_id: 'alice' }))
  await until(store, (s) => session(s, 'alice')?.status === 'idle')
  const end = agent.log.find((e) => e.type === 'REPLY_END')
  assert.is(end && end.type === 'REPLY_END' && end.finished_reason, 'interrupted')
  assert.equal(session(store.getState(), 'alice'), replay(agent.log))
})

test('commands for a session not followed, or a send while a reply runs, are error actions; dispatch never throws', async () => {
  const agent = createAgent(agentOptions())
  const { store, seen } = makeStore({ agents: { alice: agent } })
  const rejections: unknown[] = []
  const onRejection = (reason: unknown) => rejections.push(reason)
  process.on('unhandledRejection', onRejection)
  try {
    store.dispatch(agentActions.send({ session_id: 'bob', input: 'hi' }))
    store.dispatch(agentActions.follow({ session_id: 'bob' }))
    store.dispatch(agentActions.send({ session_id: 'alice', input: 'slow a b c d e f' }))
    store.dispatch(agentActions.send({ session_id: 'alice', input: 'again' }))
    await until(store, (s) => session(s, 'alice')?.status === 'idle' && session(s, 'alice')!.seq > 0)
    store.dispatch(agentActions.unfollow({ session_id: 'alice' }))
    store.dispatch(agentActions.send({ session_id: 'alice', input: 'gone' }))
    await new Promise((resolve) => setTimeout(resolve, 20))
  } finally {
    process.off('unhandledRejection', onRejection)
  }
  const errors = seen.filter((a) => a.error) as RefusedAction[]
  assert.equal(errors.map((a) => [a.type, a.payload.code, a.meta.session_id, (a.meta as { command?: string }).command]), [
    ['agentlog/refused', 'NOT_FOLLOWED', 'bob', 'agentlog/send'],
    ['agentlog/followFailed', 'NOT_FOUND', 'bob', undefined],
    ['agentlog/refused', 'REPLY_RUNNING', 'alice', 'agentlog/send'],
    ['agentlog/refused', 'NOT_FOLLOWED', 'alice', 'agentlog/send'],
  ])
  assert.equal(rejections, [])
  assert.is(selectSession(store.getState().agents, 'alice'), undefined)
  assert.is(agent.log.filter((e) => e.type === 'USER_MESSAGE').length, 1)
})

test('actions recorded from a store dispatched again into it call no model and append nothing', async () => {
  const agent = createAgent(agentOptions())
  const { store, seen } = makeStore({ agents: { alice: agent } })
  store.dispatch(agentActions.send({ session_id: 'alice', input: 'please ask' }))
  await until(store, (s) => session(s, 'alice')?.status === 'paused')
  const [call] = session(store.getState(), 'alice')!.waiting_for
  store.dispatch(agentActions.approve({ session_id: 'alice', call }))
  await until(store, (s) => session(s, 'alice')?.status === 'idle')
  store.dispatch(agentActions.send({ session_id: 'alice', input: 'slow x y z w' }))
  await until(store, (s) => (session(s, 'alice')?.reply_msg?.content.length ?? 0) > 0)
  store.dispatch(agentActions.stop({ session_id: 'alice' }))
  await until(store, (s) => session(s, 'alice')?.status === 'idle')
  const length = agent.log.length
  const before = store.getState().agents
  const recorded = seen.slice()
  for (const action of recorded) store.dispatch(action as UnknownAction)
  await new Promise((resolve) => setTimeout(resolve, 30))
  assert.is(agent.log.length, length)
  assert.is(store.getState().agents, before)
  assert.equal(session(store.getState(), 'alice'), replay(agent.log))
})

test.run()
