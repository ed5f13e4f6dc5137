// The store: the one place events enter. `dispatch` validates an event at the boundary; every
// event (dispatched or emitted by an effect) then goes through one FIFO queue, in this order:
// append to the log, reduce, publish the state, publish the event. Effects are
// `(event$, state$, deps) => Observable<event>`; their output joins the queue, never a nested dispatch.
// Every way a state leaves the store (a state$ subscriber, getState, state$.value) seals it for
// a reducer that writes in place (reducers/inPlace.ts); `ofType` listens to its types only.
import { Observable, Subject, merge, observable, type Subscriber, type Subscription } from 'rxjs'
import { AgentError } from './errors.js'
import { AgentEventSchema, type AgentEvent } from './events.js'
import { memoryLog, type LogStore } from './log.js'
import type { AgentState } from '../reducers/state.js'

export interface StateObservable extends Observable<AgentState> {
  readonly value: AgentState
}

/** The store's event stream answers `[eventsOfType](types)` with the events of those types only (see effects/ofType.ts). */
export const eventsOfType = Symbol('agentlog.eventsOfType')
export interface EventStream extends Observable<AgentEvent> {
  [eventsOfType](types: readonly string[]): Observable<AgentEvent>
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
  /**
   * Reads the current state without handing it out (the in-place fold may go on writing into it):
   * only for reads that keep nothing of it but primitives (a status, an id).
   */
  peek<T extends string | number | boolean | null>(read: (state: AgentState) => T): T
  subscribe(listener: (state: AgentState) => void): () => void
  readonly state$: StateObservable
  readonly event$: EventStream
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
  // The current state, and its subscribers (a BehaviorSubject's two halves, so that publishing to no
  // one costs nothing).
  let current = initialState
  const state$ = new Subject<AgentState>()
  const event$ = new Subject<AgentEvent>()
  const queue: AgentEvent[] = []
  let busy = false
  // Lent to `log.append` for the duration of one call, so the hot path allocates nothing for it.
  const batch: AgentEvent[] = []
  const position = { expectedSeq: 0 }
  const seal = () => reducer.seal?.()
  // Listeners of one event type each, copied on change (a delivery runs over the list it started
  // with): an event reaches only the effects that listen for its type, a streamed delta none.
  const typed = new Map<string, Subscriber<AgentEvent>[]>()
  const deliverTyped = (event: AgentEvent) => {
    const listeners = typed.get(event.type)
    if (listeners) for (const listener of listeners) listener.next(event)
  }

  const process = (event: AgentEvent) => {
    const state = current
    // Events in the queue belong to the store (dispatched ones are fresh copies from the schema
    // parse, effects create theirs), so the position is written into their metadata in place.
    event.metadata.seq = state.seq + 1
    batch[0] = event
    position.expectedSeq = state.seq
    log.append(batch, position)
    current = reducer(state, event)
    if (state$.observed) {
      state$.next(current)
      seal()
    }
    deliverTyped(event)
    event$.next(event)
  }

  const enqueue = (event: AgentEvent) => {
    if (busy) return void queue.push(event)
    busy = true
    try {
      process(event)
      for (let i = 0; i < queue.length; i++) process(queue[i])
    } finally {
      if (queue.length) queue.length = 0
      busy = false
    }
  }

  // Every way out of the store hands the state out: a subscription (called at once with the
  // current state, as a BehaviorSubject does), `value`, getState().
  const handOut = () => {
    seal()
    return current
  }
  const stateObservable = Object.defineProperty(new Observable<AgentState>((subscriber) => {
    const subscription = state$.subscribe(subscriber)
    if (!subscription.closed) subscriber.next(handOut())
    return subscription
  }), 'value', { get: handOut }) as StateObservable

  const eventStream = Object.assign(event$.asObservable(), {
    [eventsOfType]: (types: readonly string[]) => new Observable<AgentEvent>((subscriber) => {
      for (const type of types) typed.set(type, [...(typed.get(type) ?? []), subscriber])
      return () => {
        for (const type of types) typed.set(type, typed.get(type)!.filter((listener) => listener !== subscriber))
      }
    }),
  })

  return {
    dispatch(value) {
      const event = validateEvent(value)
      enqueue(event)
      return event
    },
    getState: handOut,
    peek: (read) => read(current),
    subscribe(listener) {
      const subscription = stateObservable.subscribe(listener)
      return () => subscription.unsubscribe()
    },
    state$: stateObservable,
    event$: eventStream,
    get log() {
      return log.events
    },
    runEffects(effects, deps) {
      return merge(...effects.map((effect) => effect(eventStream, stateObservable, deps))).subscribe({
        next: enqueue,
        error: (error) => onEffectError?.(error),
      })
    },
    [observable]: () => stateObservable,
  }
}
