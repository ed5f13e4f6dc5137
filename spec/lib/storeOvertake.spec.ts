// The store's priority lane (issue 29): a Stop dispatched while a burst of streamed output waits in
// the queue overtakes it. The queued output is dropped (never appended, never acknowledged), the
// INTERRUPT_REQUESTED is appended right after the event being processed, and the log stays one
// order: it passes strict replay, and its state is the state of a run whose model had streamed only
// what was appended before the same Stop (no overtaking needed there).
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { filter, from, mergeMap, type Observable } from 'rxjs'
import { checkLog, createStore, initialState, replay, rootReducer, type AgentEvent, type AgentState } from '../../lib/index.js'
import { counterClock, createEvent, type Clock } from '../../lib/core/clock.js'
import { interruptReply } from '../../effects/interruptReply.js'
import type { AgentDeps } from '../../effects/deps.js'

const test = suite('lib/store overtake')
const reply_id = 'r1'
const block_id = 'b1'

/** A store with the real interrupt effect and a "model" that answers TEXT_BLOCK_START with `deltas` deltas and the rest of its output, in one synchronous burst. */
const run = (deltas: number, clock: Clock) => {
  const streamBurst = (event$: Observable<AgentEvent>) => event$.pipe(
    filter((e) => e.type === 'TEXT_BLOCK_START'),
    mergeMap(() => from([
      ...Array.from({ length: deltas }, (_, i) => createEvent(clock, 'TEXT_BLOCK_DELTA', { reply_id, block_id, delta: `d${i + 1} ` })),
      ...(deltas > 1 ? [
        createEvent(clock, 'TEXT_BLOCK_END', { reply_id, block_id }),
        createEvent(clock, 'MODEL_CALL_END', { reply_id, input_tokens: 1, output_tokens: 1, cache_input_tokens: 0, cache_creation_input_tokens: 0, finished_reason: 'completed' }),
        createEvent(clock, 'REPLY_END', { session_id: 's', reply_id, finished_reason: 'completed', error: null }),
      ] : []),
    ])),
  )
  const store = createStore({ reducer: rootReducer, initialState: initialState() })
  store.runEffects([streamBurst, interruptReply as never], { clock } as unknown as AgentDeps)
  return store
}

const start = (store: ReturnType<typeof run>, clock: Clock) => {
  store.dispatch(createEvent(clock, 'USER_MESSAGE', { msg: { id: 'm1', name: 'user', role: 'user', content: [{ type: 'text', id: 't', text: 'go', created_at: 'c', finished_at: 'c' }], metadata: {}, created_at: 'c', usage: null, finished_at: 'c', finished_reason: null, structured_output: null, error: null } } as never))
  store.dispatch(createEvent(clock, 'REPLY_START', { session_id: 's', reply_id, name: 'A', role: 'assistant' }))
  store.dispatch(createEvent(clock, 'MODEL_CALL_START', { reply_id, model_name: 'm' }))
}

/** A Stop as agent.cancel makes it: overtake what is queued, then INTERRUPT_REQUESTED. */
const stop = (store: ReturnType<typeof run>, clock: Clock) => {
  store.overtake?.()
  store.dispatch(createEvent(clock, 'INTERRUPT_REQUESTED', { reply_id }))
}

/** A state without its clock's readings (the two runs read the clock a different number of times). */
const timeless = (state: AgentState) => JSON.parse(JSON.stringify(state, (key, value) => (key === 'created_at' || key === 'finished_at' ? 'T' : value)))

test('a Stop during a burst is appended right after the delta being processed; the queued output is dropped', () => {
  const clock = counterClock('a')
  const store = run(50, clock)
  let stopped = false
  store.event$.subscribe((event) => {
    if (event.type === 'TEXT_BLOCK_DELTA' && !stopped) {
      stopped = true
      stop(store, clock)
    }
  })
  start(store, clock)
  store.dispatch(createEvent(clock, 'TEXT_BLOCK_START', { reply_id, block_id }))
  const types = store.log.map((e) => e.type)
  assert.equal(types, ['USER_MESSAGE', 'REPLY_START', 'MODEL_CALL_START', 'TEXT_BLOCK_START', 'TEXT_BLOCK_DELTA', 'INTERRUPT_REQUESTED', 'TEXT_BLOCK_END', 'MODEL_CALL_END', 'REPLY_END'])
  const end = store.log.at(-1) as Extract<AgentEvent, { type: 'REPLY_END' }>
  assert.is(end.finished_reason, 'interrupted')
  assert.equal(store.log.map((e) => e.metadata.seq), store.log.map((_, i) => i + 1), 'one order, no gap')
  assert.equal(replay(store.log, initialState(), { strict: true }), store.getState(), 'the log passes strict replay and folds to the state')
  assert.equal(checkLog(store.log).violations, [])
  assert.is(store.getState().status, 'idle')
})

test('the state after overtaking is the state of a run that streamed only what was appended before the same Stop', () => {
  const overtaking = (() => {
    const clock = counterClock('x')
    const store = run(50, clock)
    let stopped = false
    store.event$.subscribe((event) => {
      if (event.type === 'TEXT_BLOCK_DELTA' && !stopped) {
        stopped = true
        stop(store, clock)
      }
    })
    start(store, clock)
    store.dispatch(createEvent(clock, 'TEXT_BLOCK_START', { reply_id, block_id }))
    return store.getState()
  })()
  const plain = (() => {
    const clock = counterClock('x')
    const store = run(1, clock)
    start(store, clock)
    store.dispatch(createEvent(clock, 'TEXT_BLOCK_START', { reply_id, block_id }))
    stop(store, clock)
    return store.getState()
  })()
  assert.equal(timeless(overtaking), timeless(plain))
  assert.is(overtaking.context.at(-1)!.content.map((b) => (b.type === 'text' ? b.text : '')).join(''), 'd1 ')
})

test('overtaking stops at an event a caller dispatched while the queue was busy (it was acknowledged)', () => {
  const clock = counterClock('o')
  const store = run(20, clock)
  let stage = 0
  store.event$.subscribe((event) => {
    if (event.type !== 'TEXT_BLOCK_DELTA') return
    stage++
    // A caller's event dispatched inside the burst is owed its place; the Stop lands after it.
    if (stage === 1) store.dispatch(createEvent(clock, 'USER_MESSAGE', { msg: { id: 'm2', name: 'user', role: 'user', content: [], metadata: { steer: true }, created_at: 'c', usage: null, finished_at: 'c', finished_reason: null, structured_output: null, error: null } } as never))
    if (stage === 2) stop(store, clock)
  })
  start(store, clock)
  // A bare store has no guards (an agent would refuse or queue this message): only the order counts.
  store.dispatch(createEvent(clock, 'TEXT_BLOCK_START', { reply_id, block_id }))
  const types = store.log.map((e) => e.type)
  const interrupt = types.indexOf('INTERRUPT_REQUESTED')
  const message = types.lastIndexOf('USER_MESSAGE')
  assert.ok(interrupt > message && message > 0, `the Stop comes after the dispatched message: ${types.join(' ')}`)
})

test('overtake on an idle store drops nothing', () => {
  const clock = counterClock('i')
  const store = run(5, clock)
  start(store, clock)
  assert.is(store.overtake(), 0)
  assert.is(store.log.length, 3)
})

test.run()
