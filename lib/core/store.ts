// The store: the one place events enter. `dispatch` validates an event at the boundary; every
// event (dispatched or emitted by an effect) then goes through one FIFO queue, in this order:
// append to the log, reduce, publish the state, publish the event. A streamed delta is the one
// exception to "publish the state": a run of deltas publishes its newest state once, at the end of
// the task that reduced them or before the next state (see `publish`). Effects are
// `(event$, state$, deps) => Observable<event>`; their output joins the queue, never a nested dispatch.
// Control overtakes data: `overtake()` (agent.cancel calls it before its INTERRUPT_REQUESTED) drops
// the effects' output still waiting in the queue (never appended, never acknowledged) back to the
// last event that records work begun, so the Stop is the next event in the log (see `overtake`).
// A log that refuses or fails an append breaks the store (`fail`): nothing more is reduced, the
// effects stop, and every later dispatch throws the failure; an effect that errors is reported and
// subscribed again, so one bad event never leaves the agent without its effects.
// Every way a state leaves the store (a state$ subscriber, getState, state$.value) seals it for
// a reducer that writes in place (reducers/inPlace.ts); `ofType` listens to its types only.
import { Observable, Subject, Subscription, observable, type Subscriber } from 'rxjs'
import { AgentError, messageOf } from './errors.js'
import { AgentEventSchema, type AgentEvent } from './events.js'
import { memoryLog, type LogStore } from './log.js'
import type { AgentState } from '../../reducers/state.js'

export interface StateObservable extends Observable<AgentState> {
  /** The current state, handed out: it never changes after this. */
  readonly value: AgentState
  /**
   * Reads the current state without handing it out, so the next event may be folded into it in
   * place: `read` may return scalars, blocks and values it builds, never the state, a message or a
   * content array. An effect that only decides (the planner) reads this way; one that keeps the
   * state (a model request holds the reply's message) takes `value`.
   */
  peek<T>(read: (state: AgentState) => T): T
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
  /** Called when an effect fails unexpectedly (a bug: effects turn failures into events); the effect is then subscribed again. */
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
  /**
   * A Stop's lane: drops the effects' output queued behind the event being processed, so what is
   * dispatched next follows what the log holds. Only a suffix goes (the log stays a prefix of what
   * would have happened, closable as a crash is), back to a caller's dispatched event or one that
   * records work begun (see `droppableOutput`). Returns how many were dropped (0: queue empty).
   */
  overtake(): number
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
  // The queue's next event to process, and the length of its prefix that overtake() keeps (up to
  // the last event a caller dispatched while the queue was busy: dispatch returned, so it is owed).
  let next = 0
  let owed = 0
  let busy = false
  // Lent to `log.append` for the duration of one call, so the hot path allocates nothing for it.
  const batch: AgentEvent[] = []
  const position = { expectedSeq: 0 }
  let failure: AgentError | null = null
  const failure$ = new Subject<AgentError>()
  const effects = new Subscription()

  const fail = (cause: unknown) => {
    if (failure) return
    const seq = current.seq
    failure = isAgentError(cause) ? cause
      : new AgentError('LOG_UNAVAILABLE', `The log failed to record event ${seq + 1} (${storeErrorName(cause)}); the agent stopped with the ${seq} events the log holds. Fix the cause, then open the log again and create a new agent (a reply cut here is closed as interrupted).`, { cause, seq })
    queue.length = 0
    effects.unsubscribe()
    failure$.next(failure)
    failure$.complete()
  }

  const seal = () => reducer.seal?.()
  // Listeners of one event type each, copied on change (a delivery runs over the list it started
  // with): an event reaches only the effects that listen for its type, a streamed delta none.
  const typed = new Map<string, Subscriber<AgentEvent>[]>()
  const deliverTyped = (event: AgentEvent) => {
    const listeners = typed.get(event.type)
    if (listeners) for (const listener of listeners) listener.next(event)
  }

  // State subscribers get the state after every event, except that the states of a run of streamed
  // deltas are published once, as the newest of them, when the task that reduced them ends (a model
  // stream's network read, a timer) or just before the next state is: a view renders once per read,
  // not once per token, and the store copies no content array for states no one is given (like Redux
  // Toolkit's autoBatchEnhancer). Every other state is published at once, before its event.
  let publishDue = false
  const publish = () => {
    publishDue = false
    state$.next(current)
    seal()
  }
  const publishDueState = () => {
    if (publishDue && state$.observed) publish()
  }
  const publishSoon = () => {
    if (publishDue) return
    publishDue = true
    afterThisTask(publishDueState)
  }

  const process = (event: AgentEvent) => {
    const state = current
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
    current = reducer(state, event)
    if (state$.observed) {
      if (isStreamedDelta(event)) publishSoon()
      else publish()
    }
    deliverTyped(event)
    event$.next(event)
  }

  const enqueue = (event: AgentEvent) => {
    if (failure) return
    if (busy) return void queue.push(event)
    busy = true
    try {
      process(event)
      while (next < queue.length && !failure) process(queue[next++])
    } finally {
      if (queue.length) queue.length = 0
      next = 0
      owed = 0
      busy = false
    }
  }

  const overtake = () => {
    let keep = queue.length
    const floor = Math.max(next, owed)
    while (keep > floor && isDroppableOutput(queue[keep - 1])) keep--
    const dropped = queue.length - keep
    queue.length = keep
    return dropped
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
  stateObservable.peek = (read) => read(current)

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
      if (failure) throw failure
      const event = validateEvent(value)
      enqueue(event)
      if (busy) owed = queue.length
      if (failure) throw failure
      return event
    },
    getState: handOut,
    peek: stateObservable.peek,
    subscribe(listener) {
      const subscription = stateObservable.subscribe(listener)
      return () => subscription.unsubscribe()
    },
    state$: stateObservable,
    event$: eventStream,
    get log() {
      return log.events
    },
    runEffects(list, deps) {
      // Each effect feeds the queue directly (no merge: one hop less per event); one that errors
      // is reported and subscribed again.
      const subscription = new Subscription()
      const start = (effect: Effect<typeof deps>) => {
        subscription.add(effect(eventStream, stateObservable, deps).subscribe({
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
    overtake,
    [observable]: () => stateObservable,
  }
}

const streamedDeltas = new Set(['TEXT_BLOCK_DELTA', 'THINKING_BLOCK_DELTA', 'DATA_BLOCK_DELTA', 'TOOL_CALL_DELTA', 'TOOL_RESULT_TEXT_DELTA', 'TOOL_RESULT_DATA_DELTA'])
const isStreamedDelta = (event: AgentEvent) => streamedDeltas.has(event.type)
/**
 * What a Stop may overtake: what a model or a tool streamed (deltas, the starts and ends framing
 * them, a REPLY_END whose place the Stop's close takes). Not work begun or decided (REPLY_START,
 * MODEL_CALL_START, RUNS_DECIDED, TOOL_STARTED, TOOL_RESULT_START, a pause) nor usage reported.
 */
const droppableOutput = new Set([...streamedDeltas, 'TEXT_BLOCK_START', 'TEXT_BLOCK_END', 'THINKING_BLOCK_START', 'THINKING_BLOCK_END', 'DATA_BLOCK_START', 'DATA_BLOCK_END', 'TOOL_CALL_START', 'TOOL_CALL_END', 'TOOL_RESULT_END', 'MODEL_CALL_END', 'REPLY_END'])
const isDroppableOutput = (event: AgentEvent) => droppableOutput.has(event.type)

/** Runs `task` once the current macrotask and its microtasks are done (Node's setImmediate; a 0 ms timer in a browser). */
export const afterThisTask: (task: () => void) => void = typeof setImmediate === 'function' ? (task) => void setImmediate(task) : (task) => void setTimeout(task, 0)

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
