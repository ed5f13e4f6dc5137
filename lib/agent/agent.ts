// The agent: wires the store, the reducers and the effects, admits input (schema, then the pure
// guards, before anything is appended), and exposes each reply as an async iterable, an Observable
// and a promise. Every way of stopping a reply (a signal, leaving the loop, unsubscribing,
// interrupt()) dispatches INTERRUPT_REQUESTED; the pure interrupt function does the rest.
import { filter, firstValueFrom, merge, Observable } from 'rxjs'
import type { z } from 'zod'
import type { AgentDeps } from '../../effects/deps.js'
import { agentEffects } from '../../effects/index.js'
import { closeReply } from '../../reducers/interrupt.js'
import { inPlaceReducer } from '../../reducers/inPlace.js'
import { replay } from '../../reducers/root.js'
import type { AgentState } from '../../reducers/state.js'
import { replyIdOf } from '../../reducers/selectors.js'
import { systemClock, createEvent } from '../core/clock.js'
import { compactionSettings } from './compaction.js'
import { AgentError, messageOf } from '../core/errors.js'
import type { AgentEvent, OutputEvent } from '../core/events.js'
import { memoryLog, type LogStore } from '../core/log.js'
import { approveEvent, checkCallRef, denyEvent, submitResultEvent, type ApproveOptions, type ExternalResult } from './inputs.js'
import { checkAgentOptions, checkReplyOptions } from './options.js'
import { ReplyRun } from './replyRun.js'
import type { ReplyOptions } from './replyOptions.js'
import { asReply, type Reply } from './text.js'
import { createStore, type Store } from '../core/store.js'
import { checkOutputSchema, type StructuredMsg } from './structuredOutput.js'
import type { Tool } from './tools.js'
import { descendantEvents$ } from '../subagents/descendants.js'
import { flushChildText } from '../subagents/childText.js'
import { childLinks } from '../subagents/links.js'
import { reviveSubagents } from '../subagents/revive.js'
import type { SubagentLogs } from '../subagents/childLogs.js'
import { ownerOfCall, ownerOfReply, replyTreeUsage, treeRunning, treeWaitingFor, type CallRef } from '../subagents/tree.js'
import { runtimeHintSettings } from './hints.js'
import { DEFAULT_INTERRUPT_TEXT, type AgentInput, type AgentOptions } from './agentOptions.js'
import { ReplyPreparation } from './prepare.js'
import { closeAgent, followDescendant } from './follow.js'
import { endsWithFork, Talk, type InterruptOptions, type InterruptResult, type QueueResult, type SteerResult, type TalkOptions } from './talk.js'

export { DEFAULT_INTERRUPT_TEXT, type AgentInput, type AgentOptions } from './agentOptions.js'

export class Agent {
  readonly name: string
  /** Every event, as it is appended. */
  readonly events$: Observable<AgentEvent>
  /** The current state at once, then the state after every event; the deltas streamed within one task give one state, their newest. */
  readonly state$: Observable<AgentState>
  readonly interruptText: string
  /** Where the sub-agents of this agent (and theirs) keep their logs (AgentOptions.subagentLogs), or null: in memory. */
  readonly subagentLogs: SubagentLogs | null
  private readonly store: Store
  private readonly logStore: LogStore
  private readonly deps: AgentDeps
  /** The agent's tools and, after them, the caller's tools of the current reply (ReplyOptions.externalTools). */
  private readonly tools: Map<string, Tool>
  private readonly preparation: ReplyPreparation
  private readonly talk: Talk

  constructor(options: AgentOptions) {
    checkAgentOptions(options)
    if (options.output !== undefined) checkOutputSchema(options.output, 'createAgent')
    const compaction = compactionSettings(options.compaction)
    const runtimeHints = runtimeHintSettings(options.runtimeHints)
    const { name, sysPrompt = '', model, tools = [], maxIters = 50, log = memoryLog(), clock = systemClock } = options
    const snapshot = log.snapshot?.() ?? null
    const restored = snapshot ? replay(log.read({ fromSeq: snapshot.seq }), snapshot.state) : replay(log.events)
    const session_id = options.session_id ?? restored.session_id ?? clock.id()
    this.name = name
    this.interruptText = options.interruptText ?? DEFAULT_INTERRUPT_TEXT
    this.subagentLogs = options.subagentLogs ?? null
    this.logStore = log
    this.tools = new Map(tools.map((t) => [t.name, t]))
    this.deps = { name, session_id, sysPrompt, model, tools: this.tools, output: null, outputSchema: null, maxIters, maxCallsPerResponse: options.maxCallsPerResponse, runtimeHints, compaction, clock, host: this, confirm: log.confirm ? () => log.confirm!() : null }
    this.preparation = new ReplyPreparation(this.deps, this.tools, options.output ?? null, () => this.store)
    this.store = createStore({ reducer: inPlaceReducer(), initialState: restored, log, onEffectError: (error) => this.endAfterEffectError(error) })
    this.store.runEffects(agentEffects.reply, this.deps)
    const agent = this
    this.talk = new Talk(this.store, clock, { get log() { return agent.log }, startWith: (msg, metadata) => this.dispatch(msg, { metadata }), cancelNow: (id, keep) => this.cancel(id, keep), runningChildren: () => this.children().filter((c) => c.state.status === 'running') })
    log.onFailure?.((error) => this.store.fail(error))
    this.events$ = this.store.event$
    this.state$ = this.store.state$
    // Sub-agents of the restored reply are reopened from their logs: a parked one is linked again (an
    // ended one answers its call); one a crash cut is closed, before this reply (deepest first).
    if (restored.status !== 'idle') this.reviveTree(true)
    // A log that ends inside a running reply (the process died) is closed like an interrupt.
    if (restored.status === 'running') for (const event of closeReply(restored, clock, { reason: 'interrupted' })) this.store.dispatch(event)
    // The queue starts when a reply ends, and after a crash once the cut reply is closed (a fork starts nothing by itself).
    this.store.runEffects(agentEffects.queue, this.deps)
    if (this.state.queue.length && this.state.status === 'idle' && !endsWithFork(log, restored.seq)) this.talk.startQueue()
  }

  get state(): AgentState {
    return this.store.getState()
  }

  get log(): readonly AgentEvent[] {
    return this.store.log
  }

  /** The error that stopped this agent (its log failed to record an event, or it was closed), or null while it works. */
  get failure(): AgentError | null {
    return this.store.failure
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

  /**
   * Runs a reply to its end (or pause) and resolves to its message, with `text` and the calls it
   * waits for; see ReplyOptions. With `output` the message's `structured_output` is the value, typed
   * from the schema (null: interrupted, failed or out of iterations, as `finished_reason` says).
   */
  async reply<S extends z.ZodType>(input: AgentInput, options: ReplyOptions & { output: S }): Promise<StructuredMsg<z.output<S>> & Pick<Reply, 'text' | 'waiting_for'>>
  async reply(input: AgentInput, options?: ReplyOptions): Promise<Reply>
  async reply(input: AgentInput, options: ReplyOptions = {}): Promise<Reply> {
    const run = this.start(input, options)
    for await (const _ of run) void _
    const result = this.preparation.typedOutput(run.result())
    const { status, reply_id } = this.state
    // A reply that ran sub-agents reports the usage of its whole tree in its metadata.
    const tree_usage = result.finished_reason === 'completed' ? replyTreeUsage(result) : null
    const msg = tree_usage ? { ...result, metadata: { ...result.metadata, tree_usage } } : result
    return asReply(msg, status === 'paused' && reply_id === replyIdOf(msg) ? treeWaitingFor(this) : [])
  }

  /**
   * Approves the waiting call (its id, or a call of `waiting_for`, which names its session) and runs the reply on, like
   * reply(). The call may be a sub-agent's (any depth): it is answered there, and the reply goes on
   * once the sub-agents' results come back.
   */
  async approve(call: CallRef, options: ApproveOptions = {}, replyOptions: ReplyOptions = {}): Promise<Reply> {
    const [owner, callId] = this.ownerOf(call, 'approve')
    return this.reply(approveEvent(owner.state, callId, options, this.deps.clock), replyOptions)
  }

  /** Denies the waiting call (see approve; the model sees the denial) and runs the reply on, like reply(); a sub-agent's call too. */
  async deny(call: CallRef, reason?: string, replyOptions: ReplyOptions = {}): Promise<Reply> {
    const [owner, callId] = this.ownerOf(call, 'deny')
    return this.reply(denyEvent(owner.state, callId, reason, this.deps.clock), replyOptions)
  }

  /** Gives the result of the waiting external call (see approve; a string is a successful output) and runs the reply on; a sub-agent's call too. */
  async submitResult(call: CallRef, result: ExternalResult, replyOptions: ReplyOptions = {}): Promise<Reply> {
    const [owner, callId] = this.ownerOf(call, 'submitResult')
    return this.reply(submitResultEvent(owner.state, callId, result, this.deps.clock), replyOptions)
  }

  /** Reopens the sub-agents of a reply restored from its log, and theirs (lib/subagents/revive.ts). */
  private reviveTree(restoring = false): void {
    reviveSubagents(this, this.tools, { restoring }, (child) => child.reviveTree())
  }

  /**
   * The sub-agents this agent's calls ran in this process (agentTool), oldest first; each is an
   * Agent with its own session and log (their own children are on their `children()`).
   */
  children(): Agent[] {
    return childLinks(this).map((link) => link.agent)
  }

  /**
   * The agent of this tree waiting for the call, and the call's id: this agent, unless a sub-agent's
   * call is meant (a call of `waiting_for`, or its id).
   */
  private ownerOf(call: CallRef, verb: string): [Agent, string] {
    checkCallRef(call, verb)
    this.reviveTree()
    const named = typeof call === 'object' && call !== null
    const id = named ? call.id : call
    const mine = (!named || (call.session_id ?? this.session_id) === this.session_id) && this.state.waiting_for.some((c) => c.id === id)
    return [mine ? this : ownerOfCall(this, call) ?? this, id]
  }

  /** Starts or resumes a reply exactly as replyStream would (or a sub-agent's, for its input event); its events arrive on `events$`. */
  dispatch(input: AgentInput, options: Pick<ReplyOptions, 'output' | 'externalTools' | 'metadata' | 'traceContext' | 'whilePaused'> = {}): void {
    // A sub-agent's input (its reply id): dispatched there; this reply goes on with its result.
    const owner = this.descendantFor(input)
    if (owner) return owner.dispatch(input, options)
    const queued = this.talk.whilePaused(input, options.whilePaused)
    if (queued) return queued.send()
    const event = this.preparation.prepare(input, options)
    if (event) this.store.dispatch(event)
  }

  /** Interrupts whatever runs (cancel) or is paused (USER_INTERRUPT); resolves once the reply ended, to the messages it handed back (`{ queue }`; lib/agent/talk.ts). */
  async interrupt(options: InterruptOptions = {}): Promise<InterruptResult> {
    this.reviveTree()
    return this.talk.interrupt(options)
  }

  /** A message for the running reply: it joins at the next step boundary (held while paused); while idle it starts a reply. */
  async steer(input: AgentInput, options?: TalkOptions): Promise<SteerResult> {
    return this.talk.steer(input, options)
  }

  /** Queues a message: it starts the next reply once this one ends (at once while idle); `agent.state.queue` lists what waits. */
  async queue(input: AgentInput, options?: TalkOptions): Promise<QueueResult> {
    return this.talk.queue(input, options)
  }

  /** Takes a queued message back before it starts (UNKNOWN_QUEUED when none waits with that id). */
  async unqueue(id: string, options?: TalkOptions): Promise<void> {
    this.talk.unqueue(id, options)
  }

  /** Stops a running reply (a person's Stop: the waiting messages are handed back unless `keepQueue`); nothing when it is not running. */
  cancel(reply_id: string, keepQueue = false): void {
    const state = this.state
    if (state.reply_id !== reply_id || state.status !== 'running' || state.loop?.closing || this.store.failure) return
    // The Stop overtakes the output still queued behind the event being processed (none unless
    // this runs inside a synchronous burst); then what the running sub-agent calls hold of their
    // children's text joins the calls before they close.
    this.store.overtake()
    flushChildText(this)
    this.dispatchClosing([createEvent(this.deps.clock, 'INTERRUPT_REQUESTED', { reply_id, metadata: keepQueue ? { keep_queue: true } : {} })])
  }

  /** Resolves once every event in the log is durable (at once on a memory or file log); rejects with the log's failure. */
  async flush(): Promise<void> {
    await this.logStore.flush?.()
  }

  /** The log commits after append returns (a database): replies hold back REPLY_END and pauses until committed. */
  get commitsAfterAppend(): boolean {
    return typeof this.logStore.flush === 'function'
  }

  /** Calls `listener` once if the agent stops on its log: an append refused, a commit lost after append returned, or close(). */
  onLogFailure(listener: (error: AgentError) => void): () => void {
    const subscription = this.store.failure$.subscribe(listener)
    return () => subscription.unsubscribe()
  }

  /**
   * Dispatches events that stop a reply. A cancel can come from anywhere (an abort listener, an
   * unsubscribe), so a log that fails to take them breaks the store without throwing there: the
   * failure reaches the reply's consumer (and every later call) instead.
   */
  private dispatchClosing(events: AgentEvent[]) {
    try {
      for (const event of events) this.store.dispatch(event)
    } catch (error) {
      if (error !== this.store.failure) throw error
    }
  }

  /**
   * Interrupts a running reply and waits for it to end, closes the tools that hold resources (each
   * `close()` once) and the sub-agents it ran, then flushes and releases the log. Called from an `events$` subscriber, the
   * interrupt runs once that delivery is over, before the release.
   */
  async close(): Promise<void> {
    await closeAgent(this, this.store, this.logStore, this.tools)
  }

  /** An effect failed (a bug, not a model or tool failure): the reply in progress ends with an error. */
  private endAfterEffectError(error: unknown) {
    const state = this.state
    if (state.status === 'idle' || this.store.failure) return
    const info = { type: 'unknown' as const, message: `agentlog failed while running the reply: ${messageOf(error)}` }
    this.dispatchClosing(closeReply(state, this.deps.clock, { reason: 'error', error: info }))
  }

  private start(input: AgentInput, options: ReplyOptions): ReplyRun {
    const owner = this.descendantFor(input)
    const queued = owner ? null : this.talk.whilePaused(input, options.whilePaused)
    const run = owner ? followDescendant(this, this.store, owner, input as AgentEvent, options) : new ReplyRun(this, this.store, queued ?? this.preparation.prepare(input, options), options)
    if (options.descendants) run.interleave(descendantEvents$(this))
    return run
  }

  /** The sub-agent whose paused reply an input event answers (its reply_id is the sub-agent's), if any. */
  private descendantFor(input: AgentInput): Agent | undefined {
    this.reviveTree()
    if (typeof input !== 'object' || input === null || !('reply_id' in input) || typeof input.reply_id !== 'string') return undefined
    const owner = this.state.reply_id === input.reply_id ? undefined : ownerOfReply(this, input.reply_id)
    return owner === this ? undefined : owner
  }
}

export const createAgent = (options: AgentOptions): Agent => new Agent(options)
