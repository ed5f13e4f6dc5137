// The store on its own, as an RxJS app would use it: validate, append, reduce, publish state,
// publish event, in that order; effect output queued behind the event that caused it (never a
// nested dispatch); an invalid event refused with the log unchanged; interop via Symbol.observable;
// ofType's per-type delivery; every way a state leaves the store seals it; a run of streamed deltas
// publishes its newest state once, at the end of its task or before the next state.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { from, map, filter, type Observable } from 'rxjs'
import { AgentError, createStore, initialState, rootReducer, type AgentEvent, type AgentState } from '../../lib/index.js'
import { ev } from '../helpers/events.js'
import { ofType } from '../../effects/ofType.js'

const test = suite('lib/store')
const userMessage = () => ev('USER_MESSAGE', { msg: { id: 'm', name: 'user', role: 'user', content: [], metadata: {}, created_at: 't', usage: null, finished_at: 't', finished_reason: null, structured_output: null, error: null } })

test('an event is appended and reduced before the state is published, and the state before the event', () => {
  const store = createStore({ reducer: rootReducer, initialState: initialState() })
  const order: string[] = []
  store.state$.subscribe((s) => order.push(`state:${s.seq}:log=${store.log.length}`))
  store.event$.subscribe((e) => order.push(`event:${e.metadata.seq}:state=${store.getState().seq}`))
  store.dispatch(userMessage())
  assert.equal(order, ['state:0:log=0', 'state:1:log=1', 'event:1:state=1'])
  assert.is(store.log[0].metadata.seq, 1, 'the position is kept in metadata')
  assert.is(store.getState().context.length, 1)
})

test('effect output is queued behind the event that caused it, in order', () => {
  const store = createStore({ reducer: rootReducer, initialState: initialState() })
  const reactToMessage = (event$: Observable<AgentEvent>) => event$.pipe(
    filter((e) => e.type === 'USER_MESSAGE'),
    map(() => ev('REPLY_START', { session_id: 's', reply_id: 'r', name: 'A', role: 'assistant' })),
  )
  store.runEffects([reactToMessage], {})
  const seenByLateSubscriber: string[] = []
  store.event$.subscribe((e) => seenByLateSubscriber.push(`${e.type}@${store.getState().seq}`))
  store.dispatch(userMessage())
  assert.equal(seenByLateSubscriber, ['USER_MESSAGE@1', 'REPLY_START@2'], 'every subscriber saw USER_MESSAGE before REPLY_START was reduced')
  assert.equal(store.log.map((e) => e.type), ['USER_MESSAGE', 'REPLY_START'])
  assert.is(store.getState().status, 'running')
})

test('an invalid event is refused with a code and the log is unchanged', () => {
  const store = createStore({ reducer: rootReducer, initialState: initialState() })
  store.dispatch(userMessage())
  const before = JSON.stringify(store.log)
  for (const bad of [null, { type: 'TEXT_BLOCK_DELTA' }, { ...userMessage(), surprise: true }]) {
    assert.throws(() => store.dispatch(bad), (e: AgentError) => e.code === 'INVALID_EVENT')
  }
  assert.is(JSON.stringify(store.log), before)
  assert.is(store.getState().seq, 1)
})

test('the store is an observable of states (Symbol.observable), and subscribe returns an unsubscribe', () => {
  const store = createStore({ reducer: rootReducer, initialState: initialState() })
  const seqs: number[] = []
  const subscription = from(store as unknown as Observable<AgentState>).subscribe((s) => seqs.push(s.seq))
  const listened: number[] = []
  const unsubscribe = store.subscribe((s) => listened.push(s.seq))
  store.dispatch(userMessage())
  unsubscribe()
  store.dispatch(userMessage())
  subscription.unsubscribe()
  assert.equal(seqs, [0, 1, 2])
  assert.equal(listened, [0, 1])
  assert.is(store.state$.value.seq, 2)
})

test('ofType on the store stream gets only its types, in order, until unsubscribed; on any Observable it filters alike', () => {
  const store = createStore({ reducer: rootReducer, initialState: initialState() })
  const events = [
    userMessage(),
    ev('REPLY_START', { session_id: 's', reply_id: 'r', name: 'A', role: 'assistant' }),
    ev('MODEL_CALL_START', { reply_id: 'r', model_name: 'm' }),
    ev('TEXT_BLOCK_START', { reply_id: 'r', block_id: 'b' }),
    ev('TEXT_BLOCK_DELTA', { reply_id: 'r', block_id: 'b', delta: 'x' }),
    ev('TEXT_BLOCK_END', { reply_id: 'r', block_id: 'b' }),
  ]
  const fromStore: string[] = []
  const fromPlain: string[] = []
  const all: string[] = []
  const subscription = store.event$.pipe(ofType('REPLY_START', 'TEXT_BLOCK_END', 'TEXT_BLOCK_START')).subscribe((e) => fromStore.push(`${e.type}@${e.metadata.seq}`))
  store.event$.subscribe((e) => all.push(e.type))
  for (const event of events.slice(0, 5)) store.dispatch(event)
  subscription.unsubscribe()
  store.dispatch(events[5])
  from(store.log).pipe(ofType('REPLY_START', 'TEXT_BLOCK_END', 'TEXT_BLOCK_START')).subscribe((e) => fromPlain.push(`${e.type}@${e.metadata.seq}`))
  assert.equal(fromStore, ['REPLY_START@2', 'TEXT_BLOCK_START@4'], 'no other type, nothing after unsubscribing')
  assert.equal(fromPlain, ['REPLY_START@2', 'TEXT_BLOCK_START@4', 'TEXT_BLOCK_END@6'])
  assert.equal(all, events.map((e) => e.type), 'the whole stream still carries every event')
})

test('every way a state leaves the store seals it for an in-place reducer (getState, state$.value, subscribing, each state a subscriber gets); peek does not', () => {
  const sealed: number[] = []
  const reducer = Object.assign((state: AgentState, event: AgentEvent) => rootReducer(state, event), { seal: () => void sealed.push(sealed.length) })
  const store = createStore({ reducer, initialState: initialState() })
  store.dispatch(userMessage())
  assert.is(sealed.length, 0, 'no one looked yet')
  assert.is(store.peek((s) => s.seq), 1)
  assert.is(sealed.length, 0, 'peek reads without handing out')
  store.getState()
  void store.state$.value
  store.state$.subscribe(() => undefined).unsubscribe()
  assert.is(sealed.length, 3)
  const unsubscribe = store.subscribe(() => undefined)
  store.dispatch(userMessage())
  unsubscribe()
  assert.is(sealed.length, 5, 'a subscriber on state$ seals each state it is given')
})

const streamingRound = () => [
  userMessage(),
  ev('REPLY_START', { session_id: 's', reply_id: 'r', name: 'A', role: 'assistant' }),
  ev('MODEL_CALL_START', { reply_id: 'r', model_name: 'm' }),
  ev('TEXT_BLOCK_START', { reply_id: 'r', block_id: 'b' }),
]
const delta = (text: string) => ev('TEXT_BLOCK_DELTA', { reply_id: 'r', block_id: 'b', delta: text })
const nextTask = () => new Promise((resolve) => setImmediate(resolve))
const textOfReply = (s: AgentState) => (s.reply_msg?.content[0] as { text?: string } | undefined)?.text

test('the deltas reduced in one task publish one state, their newest, when the task ends; every other state is published at once', async () => {
  const store = createStore({ reducer: rootReducer, initialState: initialState() })
  for (const event of streamingRound()) store.dispatch(event)
  const seen: string[] = []
  const events: number[] = []
  store.state$.subscribe((s) => seen.push(`${s.seq}:${textOfReply(s)}`))
  store.event$.subscribe((e) => events.push(e.metadata.seq as number))
  for (const text of ['a', 'b', 'c']) store.dispatch(delta(text))
  assert.equal(seen, ['4:'], 'no delta state yet, while the task runs')
  assert.equal(events, [5, 6, 7], 'every delta event is published at once')
  assert.is(textOfReply(store.getState()), 'abc', 'getState is the newest state')
  await nextTask()
  assert.equal(seen, ['4:', '7:abc'], 'the newest delta state once, when the task has ended')
  await nextTask()
  assert.equal(seen.length, 2, 'and only once')
})

test('a state that is not a delta\'s supersedes the delta states before it: published at once, in order, with them folded in', () => {
  const store = createStore({ reducer: rootReducer, initialState: initialState() })
  for (const event of streamingRound()) store.dispatch(event)
  const seen: string[] = []
  store.state$.subscribe((s) => seen.push(`${s.seq}:${textOfReply(s)}`))
  store.dispatch(delta('x'))
  store.dispatch(delta('y'))
  store.dispatch(ev('TEXT_BLOCK_END', { reply_id: 'r', block_id: 'b' }))
  assert.equal(seen, ['4:', '7:xy'])
})

test('a delta in a task of its own publishes its own state (a model stream delivers one network read per task)', async () => {
  const store = createStore({ reducer: rootReducer, initialState: initialState() })
  for (const event of streamingRound()) store.dispatch(event)
  const seen: number[] = []
  store.state$.subscribe((s) => seen.push(s.seq))
  for (const text of ['a', 'b', 'c']) {
    store.dispatch(delta(text))
    await nextTask()
  }
  assert.equal(seen, [4, 5, 6, 7])
})

test.run()
