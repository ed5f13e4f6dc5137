// One reply as its caller sees it: the output events of that reply, from the input that started or
// resumed it to its REPLY_END or its pause, consumed as an async iterable or an Observable. Leaving
// early (return(), unsubscribe, the signal) stops the reply; by the time that call returns, the log
// holds the closing events, because the interrupt runs synchronously in the store.
import { Observable, type Subscription } from 'rxjs'
import type { Agent } from './agent.js'
import { CommitGate } from './commitGate.js'
import { AbortError, ModelError } from './errors.js'
import { isOutputEvent, type AgentEvent, type OutputEvent, type ReplyEndEvent } from './events.js'
import type { Msg } from './messages.js'
import type { Store } from './store.js'
import { selectEndedReply } from '../reducers/selectors.js'
import type { AgentState } from '../reducers/state.js'
import type { CallerToolSpec } from './tools.js'

export interface ReplyOptions {
  /** Aborting it interrupts the reply; the stream then yields the closing events and ends. */
  signal?: AbortSignal
  /** Make `reply()` reject with an AbortError on an interrupted reply (after the cleanup) instead of resolving. */
  rejectOnInterrupt?: boolean
  /**
   * Tools the caller executes, offered to the model from this reply on (replacing those of an earlier
   * reply); a call to one parks the reply with REQUIRE_EXTERNAL_EXECUTION. The agent's own tools win a name clash.
   */
  externalTools?: CallerToolSpec[]
}

/** The output events after which a reply can be paused (the reducers derive the status there). */
const mayPause: ReadonlySet<string> = new Set(['REQUIRE_USER_CONFIRM', 'REQUIRE_EXTERNAL_EXECUTION', 'TOOL_RESULT_START', 'TOOL_RESULT_END'])

export class ReplyRun implements AsyncIterable<OutputEvent> {
  private reply_id: string | null
  private readonly buffer: OutputEvent[] = []
  private read = 0
  private done = false
  private end: ReplyEndEvent | null = null
  private wake: (() => void) | null = null
  private sink: { next: (event: OutputEvent) => void; complete: () => void; error: (error: unknown) => void } | null = null
  private subscription: Subscription | null = null
  /** Asked to stop: set before the reply's id is known, the stop happens on its REPLY_START. */
  private stopping = false
  /** The state when the run ended (the outcome is read from it, not from a later state). */
  private settled: AgentState | null = null
  private readonly onAbort = () => this.stop()
  /** On a log that commits after append returns: holds back REPLY_END and pauses until committed. */
  private readonly gate: CommitGate<OutputEvent> | null = null
  /** The log failed (see Agent.onLogFailure): the run ends with this error, nothing more delivered. */
  private failure: unknown = null
  private unwatchLog: (() => void) | null = null

  constructor(private readonly agent: Agent, private readonly store: Store, input: AgentEvent | null, private readonly options: ReplyOptions) {
    if (!input) {
      this.reply_id = store.getState().reply_id
      this.done = true
      return
    }
    this.reply_id = input.type === 'USER_MESSAGE' ? null : (input as { reply_id: string }).reply_id
    if (agent.commitsAfterAppend) {
      this.gate = new CommitGate<OutputEvent>(() => agent.flush(), (event) => this.deliver(event), (error) => this.fail(error))
      this.unwatchLog = agent.onLogFailure((error) => this.fail(error))
    }
    this.subscription = store.event$.subscribe((event) => this.onEvent(event))
    options.signal?.addEventListener('abort', this.onAbort)
    store.dispatch(input)
  }

  private onEvent(event: AgentEvent) {
    if (this.done || !isOutputEvent(event)) return
    if (this.reply_id === null && event.type === 'REPLY_START') {
      this.reply_id = event.reply_id
      if (this.stopping) this.agent.cancel(event.reply_id)
    }
    if (event.reply_id !== this.reply_id) return
    if (this.gate) this.gate.pass(event)
    else this.deliver(event)
  }

  private deliver(event: OutputEvent) {
    if (this.done) return
    if (this.sink) this.sink.next(event)
    else this.buffer.push(event)
    if (event.type === 'REPLY_END') {
      this.end = event
      this.finish()
    } else if (mayPause.has(event.type) && this.isPaused()) {
      // A pause is final once the burst of events that caused it is over (all asks of a batch,
      // every result of an external answer): check again after it.
      queueMicrotask(() => {
        if (this.isPaused()) this.finish()
        this.wake?.()
      })
    }
    this.wake?.()
  }

  private isPaused(): boolean {
    const state = this.store.getState()
    return state.status === 'paused' && state.reply_id === this.reply_id
  }

  private finish() {
    if (this.done && !this.subscription) return
    this.done = true
    this.settled = this.store.getState()
    this.sink?.complete()
    this.subscription?.unsubscribe()
    this.subscription = null
    this.options.signal?.removeEventListener('abort', this.onAbort)
    this.unwatchLog?.()
    this.unwatchLog = null
  }

  /** The log failed: the consumer gets the error after what it was already given, nothing more. */
  private fail(error: unknown) {
    if (this.done && !this.subscription) return
    this.failure = error
    const sink = this.sink
    this.sink = null
    this.finish()
    sink?.error(error)
    this.wake?.()
  }

  /** Interrupts the reply if it is still running, and stops listening. */
  stop(): void {
    if (this.done) return
    this.stopping = true
    if (this.reply_id) this.agent.cancel(this.reply_id)
    // Called from inside the store's delivery, the closing events are still queued (or the reply
    // has not started yet): keep listening, REPLY_END will finish the run.
    const state = this.store.getState()
    const pending = this.reply_id === null || (state.reply_id === this.reply_id && state.status === 'running') || !!this.gate?.holding
    if (!pending) this.finish()
    this.wake?.()
  }

  get events$(): Observable<OutputEvent> {
    return new Observable<OutputEvent>((subscriber) => {
      // The subscriber may interrupt the reply while it receives the buffer; the closing events
      // then join the buffer, so it is drained until empty.
      for (let event = this.buffer.shift(); event; event = this.buffer.shift()) subscriber.next(event)
      if (this.failure) return subscriber.error(this.failure)
      if (this.done) return subscriber.complete()
      this.sink = subscriber
    })
  }

  [Symbol.asyncIterator](): AsyncIterator<OutputEvent> {
    const next = (): Promise<IteratorResult<OutputEvent>> => {
      if (this.read < this.buffer.length) {
        const value = this.buffer[this.read++]
        // Drained: start over, but only once the buffer is big (a short one is cheaper to keep).
        if (this.read === this.buffer.length && this.read > 4096) this.buffer.length = this.read = 0
        return Promise.resolve({ value, done: false })
      }
      if (this.failure) return Promise.reject(this.failure)
      if (this.done) return Promise.resolve({ value: undefined, done: true })
      return new Promise((resolve) => {
        this.wake = () => {
          this.wake = null
          resolve(next())
        }
      })
    }
    return {
      next,
      return: () => {
        this.stop()
        return Promise.resolve({ value: undefined, done: true })
      },
    }
  }

  /** The reply's outcome once the stream is over: see `Agent.reply`. */
  result(): Msg {
    if (this.failure) throw this.failure
    const state = this.settled ?? this.store.getState()
    const end = this.end
    if (!end) {
      if (state.reply_msg && state.reply_msg.id === this.reply_id) return state.reply_msg
      const last = this.reply_id ? selectEndedReply(state, this.reply_id) : undefined
      if (last) return last
      throw new Error('The reply produced no message.')
    }
    if (end.finished_reason === 'error') throw new ModelError(end.error ?? { type: 'unknown', message: 'The model call failed.' })
    if (end.finished_reason === 'interrupted') {
      if (this.options.rejectOnInterrupt) throw new AbortError(end.reply_id)
      return interruptionMsg(end, this.agent.name, this.agent.interruptText)
    }
    return selectEndedReply(state, end.reply_id)!
  }
}

export const interruptionMsg = (end: ReplyEndEvent, name: string, text: string): Msg => ({
  id: end.reply_id, name, role: 'assistant', metadata: {}, created_at: end.created_at,
  content: [{ type: 'text', id: `${end.reply_id}-interrupted`, text, created_at: end.created_at, finished_at: end.created_at }],
  usage: null, finished_at: end.created_at, finished_reason: 'interrupted', structured_output: null, error: null,
})
