// The agent: wires the store, the reducers and the effects, admits input (schema, then the pure
// guards, before anything is appended), and exposes each reply as an async iterable, an Observable
// and a promise. Every way of stopping a reply (a signal, leaving the loop, unsubscribing,
// interrupt()) dispatches INTERRUPT_REQUESTED; the pure interrupt function does the rest.
import { Observable, type Subscription } from 'rxjs'
import { advanceReply } from '../effects/advanceReply.js'
import type { AgentDeps } from '../effects/deps.js'
import { interruptReply } from '../effects/interruptReply.js'
import { recordExternalResults } from '../effects/recordExternalResults.js'
import { startReply } from '../effects/startReply.js'
import { checkInput } from '../reducers/guards.js'
import { closeReply } from '../reducers/interrupt.js'
import { replay, rootReducer } from '../reducers/root.js'
import type { AgentState } from '../reducers/state.js'
import { systemClock, createEvent, type Clock } from './clock.js'
import { AgentError } from './errors.js'
import type { AgentEvent, OutputEvent } from './events.js'
import { memoryLog, type LogStore } from './log.js'
import type { Msg } from './messages.js'
import type { ChatModel } from './model.js'
import { admitInput, checkAgentOptions, checkReplyOptions } from './options.js'
import { ReplyRun, type ReplyOptions } from './replyRun.js'
import { createStore, type Store } from './store.js'
import { callerTool, type Tool } from './tools.js'

export const DEFAULT_INTERRUPT_TEXT = 'I notice the interruption. How can I help you?'

export interface AgentOptions {
  name: string
  sysPrompt?: string
  model: ChatModel
  tools?: Tool[]
  /** Reasoning steps per reply before a last, tool-less call sums up (default 50). */
  maxIters?: number
  /** Where the events go (default: in memory). An existing log is restored. */
  log?: LogStore
  session_id?: string
  /** The text of the message an interrupted `reply()` resolves to. */
  interruptText?: string
  clock?: Clock
}

export type AgentInput = Msg | AgentEvent

export class Agent {
  readonly name: string
  readonly events$: Observable<AgentEvent>
  readonly state$: Observable<AgentState>
  readonly interruptText: string
  private readonly store: Store
  private readonly logStore: LogStore
  private readonly deps: AgentDeps
  /** The agent's tools and, after them, the caller's tools of the current reply (ReplyOptions.externalTools). */
  private readonly tools: Map<string, Tool>
  private callerToolNames: string[] = []
  private readonly effects: Subscription

  constructor(options: AgentOptions) {
    checkAgentOptions(options)
    const { name, sysPrompt = '', model, tools = [], maxIters = 50, log = memoryLog(), clock = systemClock } = options
    const snapshot = log.snapshot?.() ?? null
    const restored = snapshot ? replay(log.read({ fromSeq: snapshot.seq }), snapshot.state) : replay(log.events)
    const session_id = options.session_id ?? restored.session_id ?? clock.id()
    this.name = name
    this.interruptText = options.interruptText ?? DEFAULT_INTERRUPT_TEXT
    this.logStore = log
    this.tools = new Map(tools.map((t) => [t.name, t]))
    this.deps = { name, session_id, sysPrompt, model, tools: this.tools, maxIters, clock }
    this.store = createStore({ reducer: rootReducer, initialState: restored, log })
    this.effects = this.store.runEffects([startReply, advanceReply, interruptReply, recordExternalResults], this.deps)
    log.onFailure?.((error) => this.stopOnLogFailure(error))
    this.events$ = this.store.event$
    this.state$ = this.store.state$
    // A log that ends inside a running reply (the process died) is closed like an interrupt.
    if (restored.status === 'running') for (const event of closeReply(restored, clock, { reason: 'interrupted' })) this.store.dispatch(event)
  }

  get state(): AgentState {
    return this.store.getState()
  }

  get log(): readonly AgentEvent[] {
    return this.store.log
  }

  get session_id(): string {
    return this.deps.session_id
  }

  /** Starts a reply with a user message, or resumes a paused one with an input event; yields its events. */
  replyStream(input: AgentInput, options: ReplyOptions = {}): AsyncIterable<OutputEvent> {
    return this.start(input, options)
  }

  /** The same reply as an Observable: unsubscribing interrupts it. */
  reply$(input: AgentInput, options: ReplyOptions = {}): Observable<OutputEvent> {
    return new Observable<OutputEvent>((subscriber) => {
      const run = this.start(input, options)
      const subscription = run.events$.subscribe(subscriber)
      return () => {
        subscription.unsubscribe()
        run.stop()
      }
    })
  }

  /** Runs a reply to its end (or pause) and resolves to its message; see ReplyOptions. */
  async reply(input: AgentInput, options: ReplyOptions = {}): Promise<Msg> {
    const run = this.start(input, options)
    for await (const _ of run) void _
    return run.result()
  }

  /** Starts or resumes a reply exactly as replyStream would; its events arrive on `events$`. */
  dispatch(input: AgentInput): void {
    const event = this.admit(input)
    if (event) this.store.dispatch(event)
  }

  /** Interrupts whatever is running (cancel) or paused (USER_INTERRUPT); resolves when the reply has ended. */
  async interrupt(): Promise<void> {
    const { status, reply_id } = this.state
    if (status === 'running') this.cancel(reply_id!)
    else if (status === 'paused') this.store.dispatch(createEvent(this.deps.clock, 'USER_INTERRUPT', { reply_id: reply_id! }))
  }

  /** Stops a running reply; does nothing when it is not running (already ended, paused or closing). */
  cancel(reply_id: string): void {
    const state = this.state
    if (state.reply_id !== reply_id || state.status !== 'running' || state.loop?.closing) return
    this.store.dispatch(createEvent(this.deps.clock, 'INTERRUPT_REQUESTED', { reply_id }))
  }

  /** Resolves once every event in the log is durable (at once on a memory or file log); rejects with the log's failure. */
  async flush(): Promise<void> {
    await this.logStore.flush?.()
  }

  /** The log commits after append returns (a database): replies hold back REPLY_END and pauses until committed. */
  get commitsAfterAppend(): boolean {
    return typeof this.logStore.flush === 'function'
  }

  /** Calls `listener` if the log fails after an append returned (see LogStore.onFailure). */
  onLogFailure(listener: (error: Error) => void): () => void {
    return this.logStore.onFailure?.(listener) ?? (() => {})
  }

  /** The log lost events after append returned: stop the effects (model calls, tools), so nothing more is written. */
  private stopOnLogFailure(_error: Error): void {
    this.effects.unsubscribe()
  }

  /** Interrupts a running reply, then flushes and releases the log. */
  async close(): Promise<void> {
    try {
      if (this.state.status === 'running') this.cancel(this.state.reply_id!)
    } finally {
      // A log that failed refuses the closing events; it is released all the same.
      await this.logStore.close()
    }
  }

  private start(input: AgentInput, options: ReplyOptions): ReplyRun {
    checkReplyOptions(options)
    const callerTools = options.externalTools?.map(callerTool)
    const event = this.admit(input)
    if (options.signal?.aborted) throw new AgentError('INVALID_OPTION', 'The signal passed to the reply is already aborted; nothing was started.')
    if (callerTools) this.offerCallerTools(callerTools)
    return new ReplyRun(this, this.store, event, options)
  }

  /** Replaces the caller's tools of the previous reply with these (the agent's own tools keep their names). */
  private offerCallerTools(callerTools: Tool[]): void {
    for (const name of this.callerToolNames) this.tools.delete(name)
    this.callerToolNames = callerTools.filter((t) => !this.tools.has(t.name)).map((t) => t.name)
    for (const tool of callerTools) if (!this.tools.has(tool.name)) this.tools.set(tool.name, tool)
  }

  /** Validates input and checks it against the state; returns the event to dispatch, or null for a no-op. */
  private admit(input: AgentInput): AgentEvent | null {
    const event = admitInput(input, this.deps.clock)
    const verdict = checkInput(this.state, event)
    if (verdict instanceof AgentError) throw verdict
    return verdict === 'noop' ? null : event
  }
}

export const createAgent = (options: AgentOptions): Agent => new Agent(options)
