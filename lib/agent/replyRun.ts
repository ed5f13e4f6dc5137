// One reply as its caller sees it: the output events of that reply, from the input that started or
// resumed it to its REPLY_END or its pause, consumed as an async iterable or an Observable. Leaving
// early (return(), unsubscribe, the signal) stops the reply; by the time that call returns, the log
// holds the closing events, because the interrupt runs synchronously in the store.
import { Observable, type Subscription } from 'rxjs'
import { CommitGate } from '../core/commitGate.js'
import { AbortError, AgentError, ModelError } from '../core/errors.js'
import { isOutputEvent, type AgentEvent, type OutputEvent, type ReplyEndEvent } from '../core/events.js'
import type { Msg } from '../core/messages.js'
import type { Store } from '../core/store.js'
import { selectEndedReply } from '../../reducers/selectors.js'
import type { AgentState } from '../../reducers/state.js'
import type { ReplyHost, ReplyOptions } from './replyOptions.js'
import { endedReplyMsg, lastEndOf } from './replyEnd.js'

/** The output events after which a reply can be paused (the reducers derive the status there). */
const mayPause: ReadonlySet<string> = new Set(['REQUIRE_USER_CONFIRM', 'REQUIRE_EXTERNAL_EXECUTION', 'TOOL_RESULT_START', 'TOOL_RESULT_END'])

/** A reply that a queued message starts: `send` queues it, the run begins at its USER_MESSAGE. */
export interface QueuedStart {
  startsWith: string
  send: () => void
}

export class ReplyRun implements AsyncIterable<OutputEvent> {
  private reply_id: string | null
  private readonly buffer: OutputEvent[] = []
  private read = 0
  private done = false
  private end: ReplyEndEvent | null = null
  /** The pending `next()` calls, oldest first; each is settled once an event (or the end) arrives. */
  private readonly waiting: ((result: IteratorResult<OutputEvent> | Promise<never>) => void)[] = []
  /** The store broke during the run: the stream throws it once the events before it are read. */
  private failure: AgentError | null = null
  private sink: { next: (event: OutputEvent) => void; error: (error: unknown) => void; complete: () => void } | null = null
  private subscription: Subscription | null = null
  private failureSubscription: Subscription | null = null
  /** Asked to stop: set before the reply's id is known, the stop happens on its REPLY_START. */
  private stopping = false
  /** The state when the run ended (the outcome is read from it, not from a later state). */
  private settled: AgentState | null = null
  private readonly onAbort = () => this.stop()
  /** On a log that commits after append returns: holds back REPLY_END and pauses until committed. */
  private readonly gate: CommitGate<OutputEvent> | null = null

  /** Other agents' events yielded with this reply's (its sub-agents'), until it ends. */
  private interleaved: Subscription | null = null
  /** The run follows a reply resumed elsewhere (see the constructor). */
  private readonly following: boolean = false
  /** The run is the reply a queued message will start (its id): it begins at that message's USER_MESSAGE. */
  private awaiting: string | null = null

  /**
   * `input` starts or resumes the reply; a function instead follows the current reply while the
   * function resumes it elsewhere (a sub-agent's input): the run then ends on REPLY_END or `settle()`;
   * `{ startsWith, send }` is the reply the queued message `startsWith` starts once `send` queued it.
   */
  constructor(private readonly agent: ReplyHost, private readonly store: Store, input: AgentEvent | null | (() => void) | QueuedStart, private readonly options: ReplyOptions) {
    if (!input) {
      this.reply_id = store.getState().reply_id
      this.done = true
      return
    }
    this.following = typeof input === 'function'
    if ('startsWith' in input) this.awaiting = input.startsWith
    this.reply_id = typeof input === 'function' ? store.getState().reply_id : 'startsWith' in input || input.type === 'USER_MESSAGE' ? null : (input as { reply_id: string }).reply_id
    if (agent.commitsAfterAppend) {
      // A failed commit breaks the store like a refused append; the run ends with the store's failure.
      this.gate = new CommitGate<OutputEvent>(() => agent.flush(), (event) => this.deliver(event), (error) => {
        store.fail(error)
        this.onFailure(store.failure!)
      })
    }
    this.subscription = store.event$.subscribe((event) => this.onEvent(event))
    this.failureSubscription = store.failure$.subscribe((failure) => this.onFailure(failure))
    options.signal?.addEventListener('abort', this.onAbort)
    try {
      if (typeof input === 'function') input()
      else if ('startsWith' in input) input.send()
      else store.dispatch(input)
    } catch (error) {
      if (typeof input === 'function' || 'startsWith' in input) {
        this.finish()
        throw error
      }
      // The input was refused by a store that broke on it: the run ends with that failure.
      if (error !== store.failure) throw error
      this.onFailure(error as AgentError)
    }
  }

  private onFailure(failure: AgentError) {
    if (this.done) return
    this.failure = failure
    this.finish()
    this.wake()
  }

  private onEvent(event: AgentEvent) {
    if (this.awaiting !== null) return this.onQueued(event, this.awaiting)
    if (this.done || !isOutputEvent(event)) return
    if (this.reply_id === null && event.type === 'REPLY_START') {
      this.reply_id = event.reply_id
      if (this.stopping) this.agent.cancel(event.reply_id)
    }
    if (event.reply_id !== this.reply_id) return
    // The state the reply ended in (a queued message may start the next reply before REPLY_END is committed).
    if (event.type === 'REPLY_END') this.settled = this.store.getState()
    if (this.gate) this.gate.pass(event)
    else this.deliver(event)
  }

  /** Before its reply starts: the queued message starts it, or is taken back (the run ends, resolving to nothing). */
  private onQueued(event: AgentEvent, id: string) {
    if (event.type === 'USER_MESSAGE' && event.msg.id === id) this.awaiting = null
    else if ((event.type === 'QUEUE_RETURNED' && event.returned.some((e) => e.id === id)) || (event.type === 'MESSAGE_UNQUEUED' && event.msg_id === id)) {
      this.failure = new AgentError('UNKNOWN_QUEUED', `The queued message ${id} was taken back (${event.type}) before its reply started.`)
      this.finish()
      this.wake()
    }
  }

  /** Yields `events$`'s events with the reply's own until the reply ends (see ReplyOptions.descendants). */
  interleave(events$: Observable<AgentEvent>): void {
    if (this.done) return
    this.interleaved = events$.subscribe((event) => {
      if (!isOutputEvent(event)) return
      this.push(event)
      this.wake()
    })
  }

  /** Ends a run that follows a reply resumed elsewhere, if the reply is paused now (its sub-agents parked again). */
  settle(): void {
    if (this.done || !this.isPaused()) return
    this.finish()
    this.wake()
  }

  /** True once the run is over (ended, paused, stopped or failed). */
  get over(): boolean {
    return this.done
  }

  private push(event: OutputEvent) {
    if (this.sink) this.sink.next(event)
    // A waiting consumer gets the event at once: no buffer round trip, one promise settled.
    else if (this.waiting.length && this.read === this.buffer.length) this.waiting.shift()!({ value: event, done: false })
    else this.buffer.push(event)
  }

  private deliver(event: OutputEvent) {
    if (this.done) return
    this.push(event)
    if (event.type === 'REPLY_END') {
      this.end = event
      this.finish()
    } else if (mayPause.has(event.type) && this.isPaused()) {
      // A pause is final once the burst of events that caused it is over (all asks of a batch,
      // every result of an external answer): check again after it.
      queueMicrotask(() => {
        if (this.isPaused()) this.finish()
        this.wake()
      })
    }
    this.wake()
  }

  private isPaused(): boolean {
    return this.store.peek((state) => state.status === 'paused' && state.reply_id === this.reply_id)
  }

  private finish() {
    if (this.done && !this.subscription) return
    this.done = true
    this.settled ??= this.store.getState()
    if (this.failure) this.sink?.error(this.failure)
    else this.sink?.complete()
    this.subscription?.unsubscribe()
    this.subscription = null
    this.failureSubscription?.unsubscribe()
    this.failureSubscription = null
    this.interleaved?.unsubscribe()
    this.interleaved = null
    this.options.signal?.removeEventListener('abort', this.onAbort)
  }

  /** Interrupts the reply if it is still running, and stops listening. */
  stop(): void {
    if (this.done) return
    this.stopping = true
    if (this.reply_id) this.agent.cancel(this.reply_id)
    // A run that follows a reply its sub-agents resume: the reply is paused while they work, and
    // stopping it interrupts it (its sub-agents first), as a Stop of the reply would.
    if (this.following && this.isPaused()) void this.agent.interrupt()
    // Called from inside the store's delivery, the closing events are still queued (or the reply
    // has not started yet): keep listening, REPLY_END will finish the run.
    const pending = this.reply_id === null || this.store.peek((state) => state.reply_id === this.reply_id && state.status === 'running') || !!this.gate?.holding
    if (!pending) this.finish()
    this.wake()
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

  /** What the consumer can have now (an event, the end, or the failure), or null when it has to wait. */
  private pull(): IteratorResult<OutputEvent> | Promise<never> | null {
    if (this.read < this.buffer.length) {
      const value = this.buffer[this.read++]
      // Drained: start over, but only once the buffer is big (a short one is cheaper to keep).
      if (this.read === this.buffer.length && this.read > 4096) this.buffer.length = this.read = 0
      return { value, done: false }
    }
    if (this.failure) return Promise.reject(this.failure)
    return this.done ? { value: undefined, done: true } : null
  }

  /** Settles the waiting `next()` calls, oldest first, with what there is now. */
  private wake() {
    while (this.waiting.length) {
      const result = this.pull()
      if (result === null) return
      this.waiting.shift()!(result)
    }
  }

  [Symbol.asyncIterator](): AsyncIterator<OutputEvent> {
    return {
      next: () => {
        const result = this.waiting.length ? null : this.pull()
        return result ? Promise.resolve(result) : new Promise((resolve) => this.waiting.push(resolve))
      },
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
      if (state.reply_msg && state.reply_id === this.reply_id) return state.reply_msg
      const last = this.reply_id ? selectEndedReply(state, this.reply_id) : undefined
      if (last) return last
      // A no-op input for a reply that left no message (interrupted before any output): what it resolved to.
      const ended = this.reply_id ? lastEndOf(this.agent.log, this.reply_id) : undefined
      if (ended) return endedReplyMsg(ended, undefined, this.agent.name, this.agent.interruptText)!
      throw new Error('The reply produced no message.')
    }
    if (end.finished_reason === 'error') throw new ModelError(end.error ?? { type: 'unknown', message: 'The model call failed.' })
    if (end.finished_reason === 'interrupted' && this.options.rejectOnInterrupt) throw new AbortError(end.reply_id)
    return endedReplyMsg(end, selectEndedReply(state, end.reply_id), this.agent.name, this.agent.interruptText)!
  }
}
