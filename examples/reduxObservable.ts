// Embedding agentlog in an RxJS app built on redux-observable (docs/redux.md, "In an RxJS app"):
// agentEpic carries out the commands without agentsMiddleware, and the app's own epic cancels a
// reply with takeUntil-style logic by dispatching stop when the user leaves.
// Run: npx tsx examples/reduxObservable.ts
// expect: streaming: Once upon
// expect: stopped: interrupted
// expect: answer: Paris is the capital of France.
import { configureStore } from '@reduxjs/toolkit'
import { combineEpics, createEpicMiddleware, ofType, type Epic } from 'redux-observable'
import { filter, map, take } from 'rxjs'
import { createAgent, scriptedModel, say, textOf } from 'agentlog'
import { agentActions, agentEpic, agentsReducer, selectSession, type AnyAction } from 'agentlog/redux'

const model = scriptedModel([
  [...say('Once upon a time ', 4), { type: 'delay', ms: 10_000 }, ...say('there was a log.')],
  say('Paris is the capital of France.'),
])
const agent = createAgent({ name: 'Friday', model })

type State = { agents: ReturnType<typeof agentsReducer> }

// The app's epic: once the reply has streamed "Once upon", the user leaves: stop it.
const leaveEarly: Epic<AnyAction, AnyAction, State> = (action$, state$) => action$.pipe(
  ofType('agentlog/event/TEXT_BLOCK_DELTA'),
  filter(() => (selectSession(state$.value.agents, 'friday')?.reply_msg?.content.some((b) => b.type === 'text' && b.text.startsWith('Once upon')) ?? false)),
  take(1),
  map(() => {
    const reply = selectSession(state$.value.agents, 'friday')!.reply_msg!
    console.log(`streaming: ${textOf(reply).trim()}`)
    return agentActions.stop({ session_id: 'friday' })
  }),
)

const epicMiddleware = createEpicMiddleware<AnyAction, AnyAction, State>()
const app = configureStore({
  reducer: { agents: agentsReducer },
  middleware: (getDefault) => getDefault().concat(epicMiddleware),
})
epicMiddleware.run(combineEpics<AnyAction, AnyAction, State>(agentEpic({ agents: { friday: agent } }), leaveEarly))

// Resolves with the session's state once `check` holds.
const when = (check: (s: NonNullable<ReturnType<typeof selectSession>>) => boolean) => new Promise<void>((resolve) => {
  const unsubscribe = app.subscribe(() => {
    const s = selectSession(app.getState().agents, 'friday')
    if (s && check(s)) {
      unsubscribe()
      resolve()
    }
  })
})

app.dispatch(agentActions.send({ session_id: 'friday', input: 'Tell me a story' }))
await when((s) => s.status === 'idle' && s.context.length > 0)
console.log(`stopped: ${selectSession(app.getState().agents, 'friday')!.context.at(-1)!.finished_reason}`)

app.dispatch(agentActions.send({ session_id: 'friday', input: 'Capital of France?' }))
await when((s) => s.status === 'idle' && s.context.length > 2)
console.log(`answer: ${textOf(selectSession(app.getState().agents, 'friday')!.context.at(-1)!)}`)
