// agentEpic with the real redux-observable, without agentsMiddleware: the epic alone follows the
// sessions and carries out the commands; a send's reply is cancelled by takeUntil of the stop.
import { configureStore } from '@reduxjs/toolkit'
import { createEpicMiddleware } from 'redux-observable'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createAgent, replay } from '../../lib/index.js'
import { agentActions, agentEpic, agentsReducer, type AnyAction } from '../../lib/redux.js'
import { agentOptions, session, until } from './helpers.js'

const test = suite('redux/epic')

const epicStore = (agents: Parameters<typeof agentEpic>[0]) => {
  const epicMiddleware = createEpicMiddleware<AnyAction, AnyAction>()
  const seen: AnyAction[] = []
  const store = configureStore({
    reducer: { agents: agentsReducer, seen: (state: number = 0, action: AnyAction) => (seen.push(action), state + 1) },
    middleware: (getDefault) => getDefault().concat(epicMiddleware),
  })
  epicMiddleware.run(agentEpic(agents) as never)
  return { store, seen }
}

test('the epic alone folds the session into the slice: send, approve, as replay(log)', async () => {
  const agent = createAgent(agentOptions())
  const { store } = epicStore({ agents: { alice: agent } })
  await until(store, (s) => session(s, 'alice') !== undefined)
  store.dispatch(agentActions.send({ session_id: 'alice', input: 'please ask' }))
  await until(store, (s) => session(s, 'alice')?.status === 'paused')
  const [call] = session(store.getState(), 'alice')!.waiting_for
  store.dispatch(agentActions.approve({ session_id: 'alice', call: call.id }))
  await until(store, (s) => session(s, 'alice')?.status === 'idle')
  assert.equal(session(store.getState(), 'alice'), replay(agent.log))
  assert.ok(agent.log.some((e) => e.type === 'TOOL_RESULT_END' && e.state === 'success'))
})

test('stop cancels the streaming reply (takeUntil): REPLY_END interrupted; a command for another session is refused', async () => {
  const agent = createAgent(agentOptions())
  const { store, seen } = epicStore({ agents: { alice: agent } })
  await until(store, (s) => session(s, 'alice') !== undefined)
  store.dispatch(agentActions.send({ session_id: 'alice', input: 'slow a b c d e f g h i j k l m n o p' }))
  await until(store, (s) => (session(s, 'alice')?.reply_msg?.content.length ?? 0) > 0)
  store.dispatch(agentActions.stop({ session_id: 'alice' }))
  await until(store, (s) => session(s, 'alice')?.status === 'idle')
  const end = agent.log.find((e) => e.type === 'REPLY_END')
  assert.is(end?.type === 'REPLY_END' && end.finished_reason, 'interrupted')
  assert.equal(session(store.getState(), 'alice'), replay(agent.log))
  store.dispatch(agentActions.stop({ session_id: 'bob' }))
  await until(store, () => seen.some((a) => a.type === 'agentlog/refused'))
  const refusal = seen.find((a) => a.type === 'agentlog/refused')!
  assert.equal([refusal.error, (refusal.payload as { code: string }).code], [true, 'NOT_FOLLOWED'])
})

test('unsubscribing the epic (takeUntil on its output) stops following; nothing more reaches the store', async () => {
  const agent = createAgent(agentOptions())
  const action$ = new (await import('rxjs')).Subject<AnyAction>()
  const out: AnyAction[] = []
  const subscription = agentEpic({ agents: { alice: agent } })(action$).subscribe((a) => out.push(a))
  assert.equal(out.map((a) => a.type), ['agentlog/followed'])
  subscription.unsubscribe()
  await agent.reply('one two')
  assert.is(out.length, 1)
})

test.run()
