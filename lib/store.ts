// The store: the one place events enter. `dispatch` validates an event at the boundary; every
// event (dispatched or emitted by an effect) then goes through one FIFO queue, in this order:
// append to the log, reduce, publish the state, publish the event. Effects are
// `(event$, state$, deps) => Observable<event>`; their output joins the queue, never a nested dispatch.
import { BehaviorSubject, Observable, Subject, merge, observable, type Subscription } from 'rxjs'
import { AgentError } from './errors.js'
import { AgentEventSchema, type AgentEvent } from './events.js'
import { memoryLog, type LogStore } from './log.js'
import type { AgentState } from '../reducers/state.js'

export interface StateObservable extends Observable<AgentState> {
  readonly value: AgentState
}

export type Effect<Deps> = (event$: Observable<AgentEvent>, state$: StateObservable, deps: Deps) => Observable<AgentEvent>

export interface StoreOptions {
  /**
   * A reducer with `seal` may write into the last state it returned (see reducers/inPlace.ts); the
   * store calls `seal()` whenever that state becomes visible outside it.
   */
  reducer: ((state: AgentState, event: AgentEvent) => AgentState) & { seal?: () => void }
  initialState: AgentState
  log?: LogStore
  /** Called when an effect fails unexpectedly (a bug: effects turn failures into events). */
  onEffectError?: (error: unknown) => void
}

export interface Store {
  dispatch(event: unknown): AgentEvent
  getState(): AgentState
  subscribe(listener: (state: AgentState) => void): () => void
  readonly state$: StateObservable
  readonly event$: Observable<AgentEvent>
  readonly log: readonly AgentEvent[]
  runEffects<Deps>(effects: Effect<Deps>[], deps: Deps): Subscription
  [observable](): Observable<AgentState>
}

export const validateEvent = (value: unknown): AgentEvent => {
  const parsed = AgentEventSchema.safeParse(value)
  if (parsed.success) return parsed.data
  const issue = parsed.error.issues[0]
  const where = issue.path.length ? ` at ${issue.path.join('.')}` : ''
  throw new AgentError('INVALID_EVENT', `Not a valid event${where}: ${issue.message}. Create events with the exported factories (UserMsg, UserConfirmResultEvent, ...).`, parsed.error.issues)
}

export const createStore = ({ reducer, initialState, log = memoryLog(), onEffectError }: StoreOptions): Store => {
  const state$ = new BehaviorSubject(initialState)
  const event$ = new Subject<AgentEvent>()
  const queue: AgentEvent[] = []
  let busy = false
  // Lent to `log.append` for the duration of one call, so the hot path allocates nothing for it.
  const batch: AgentEvent[] = []
  const position = { expectedSeq: 0 }
  const seal = () => reducer.seal?.()

  const process = (event: AgentEvent) => {
    const state = state$.value
    // Events in the queue belong to the store (dispatched ones are fresh copies from the schema
    // parse, effects create theirs), so the position is written into their metadata in place.
    event.metadata.seq = state.seq + 1
    batch[0] = event
    position.expectedSeq = state.seq
    log.append(batch, position)
    state$.next(reducer(state, event))
    if (state$.observed) seal()
    event$.next(event)
  }

  const enqueue = (event: AgentEvent) => {
    queue.push(event)
    if (busy) return
    busy = true
    try {
      for (let i = 0; i < queue.length; i++) process(queue[i])
    } finally {
      queue.length = 0
      busy = false
    }
  }

  // Every way out of the store hands the state out: a subscription (the BehaviorSubject calls it at
  // once with the current state), `value`, getState().
  const handOut = () => {
    seal()
    return state$.value
  }
  const stateObservable = Object.defineProperty(new Observable<AgentState>((subscriber) => {
    seal()
    return state$.subscribe(subscriber)
  }), 'value', { get: handOut }) as StateObservable

  return {
    dispatch(value) {
      const event = validateEvent(value)
      enqueue(event)
      return event
    },
    getState: handOut,
    subscribe(listener) {
      const subscription = stateObservable.subscribe(listener)
      return () => subscription.unsubscribe()
    },
    state$: stateObservable,
    event$: event$.asObservable(),
    get log() {
      return log.events
    },
    runEffects(effects, deps) {
      return merge(...effects.map((effect) => effect(event$, stateObservable, deps))).subscribe({
        next: enqueue,
        error: (error) => onEffectError?.(error),
      })
    },
    [observable]: () => stateObservable,
  }
}
