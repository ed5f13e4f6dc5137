// The store: the one place events enter. `dispatch` validates an event at the boundary; every
// event (dispatched or emitted by an effect) then goes through one FIFO queue, in this order:
// append to the log, reduce, publish the state, publish the event. Effects are
// `(event$, state$, deps) => Observable<event>`; their output joins the queue, never a nested dispatch.
// A log that refuses or fails an append breaks the store (`fail`): nothing more is reduced, the
// effects stop, and every later dispatch throws the failure; an effect that errors is reported and
// subscribed again, so one bad event never leaves the agent without its effects.
import { BehaviorSubject, Observable, Subject, Subscription, observable } from 'rxjs'
import { AgentError, messageOf } from './errors.js'
import { AgentEventSchema, type AgentEvent } from './events.js'
import { memoryLog, type LogStore } from './log.js'
import type { AgentState } from '../reducers/state.js'

export interface StateObservable extends Observable<AgentState> {
  readonly value: AgentState
}

export type Effect<Deps> = (event$: Observable<AgentEvent>, state$: StateObservable, deps: Deps) => Observable<AgentEvent>

export interface StoreOptions {
  reducer: (state: AgentState, event: AgentEvent) => AgentState
  initialState: AgentState
  log?: LogStore
  /** Called when an effect fails unexpectedly (a bug: effects turn failures into events); the effect is then subscribed again. */
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
  /**
   * Marks the store broken: the log failed to take an event (or lost one it had acknowledged).
   * The state stays at the last event the log accepted, the effects stop, and `dispatch` throws
   * `failure` from now on. The log's append calls it; an asynchronous log can feed it too.
   */
  fail(cause: unknown): void
  /** The error the store broke with (LOG_UNAVAILABLE, or the log's own coded error), or null. */
  readonly failure: AgentError | null
  /** Emits `failure` once, when the store breaks. */
  readonly failure$: Observable<AgentError>
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
  let failure: AgentError | null = null
  const failure$ = new Subject<AgentError>()
  const effects = new Subscription()

  const fail = (cause: unknown) => {
    if (failure) return
    const seq = state$.value.seq
    failure = isAgentError(cause) ? cause
      : new AgentError('LOG_UNAVAILABLE', `The log failed to record event ${seq + 1} (${storeErrorName(cause)}); the agent stopped with the ${seq} events the log holds. Fix the cause, then open the log again and create a new agent (a reply cut here is closed as interrupted).`, { cause, seq })
    queue.length = 0
    effects.unsubscribe()
    failure$.next(failure)
    failure$.complete()
  }

  const process = (event: AgentEvent) => {
    const state = state$.value
    // Events in the queue belong to the store (dispatched ones are fresh copies from the schema
    // parse, effects create theirs), so the position is written into their metadata in place.
    event.metadata.seq = state.seq + 1
    batch[0] = event
    position.expectedSeq = state.seq
    try {
      log.append(batch, position)
    } catch (error) {
      fail(error)
      return
    }
    state$.next(reducer(state, event))
    event$.next(event)
  }

  const enqueue = (event: AgentEvent) => {
    if (failure) return
    queue.push(event)
    if (busy) return
    busy = true
    try {
      for (let i = 0; i < queue.length && !failure; i++) process(queue[i])
    } finally {
      queue.length = 0
      busy = false
    }
  }

  const stateObservable = Object.defineProperty(state$.asObservable(), 'value', { get: () => state$.value }) as StateObservable

  return {
    dispatch(value) {
      if (failure) throw failure
      const event = validateEvent(value)
      enqueue(event)
      if (failure) throw failure
      return event
    },
    getState: () => state$.value,
    subscribe(listener) {
      const subscription = state$.subscribe(listener)
      return () => subscription.unsubscribe()
    },
    state$: stateObservable,
    event$: event$.asObservable(),
    get log() {
      return log.events
    },
    runEffects(list, deps) {
      // Each effect feeds the queue directly (no merge: one hop less per event); one that errors
      // is reported and subscribed again.
      const subscription = new Subscription()
      const start = (effect: Effect<typeof deps>) => {
        subscription.add(effect(event$, stateObservable, deps).subscribe({
          next: enqueue,
          error: (error: unknown) => {
            onEffectError?.(error)
            if (!subscription.closed) start(effect)
          },
        }))
      }
      for (const effect of list) start(effect)
      effects.add(subscription)
      return subscription
    },
    fail,
    get failure() {
      return failure
    },
    failure$: failure$.asObservable(),
    [observable]: () => stateObservable,
  }
}

/** The failing store's error as `CODE: message` (ENOSPC, EFBIG, ...), for the failure's message. */
const storeErrorName = (cause: unknown): string => {
  let code: unknown
  try {
    code = typeof cause === 'object' && cause !== null ? (cause as { code?: unknown }).code : undefined
  } catch {
    code = undefined
  }
  const message = messageOf(cause)
  return typeof code === 'string' && !message.startsWith(code) ? `${code}: ${message}` : message
}

/** `instanceof` that survives a thrown Proxy whose prototype trap throws. */
const isAgentError = (value: unknown): value is AgentError => {
  try {
    return value instanceof AgentError
  } catch {
    return false
  }
}
