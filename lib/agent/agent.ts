// The agent: wires the store, the reducers and the effects, admits input (schema, then the pure
// guards, before anything is appended), and exposes each reply as an async iterable, an Observable
// and a promise. Every way of stopping a reply (a signal, leaving the loop, unsubscribing,
// interrupt()) dispatches INTERRUPT_REQUESTED; the pure interrupt function does the rest.
import { filter, firstValueFrom, merge, Observable } from 'rxjs'
import type { z } from 'zod'
import { advanceReply } from '../../effects/advanceReply.js'
import type { AgentDeps } from '../../effects/deps.js'
import { interruptReply } from '../../effects/interruptReply.js'
import { recordExternalResults } from '../../effects/recordExternalResults.js'
import { startReply } from '../../effects/startReply.js'
import { checkInput } from '../../reducers/guards.js'
import { closeReply } from '../../reducers/interrupt.js'
import { inPlaceReducer } from '../../reducers/inPlace.js'
import { replay } from '../../reducers/root.js'
import type { AgentState } from '../../reducers/state.js'
import { systemClock, createEvent, type Clock } from '../core/clock.js'
import { compactionSettings, type CompactionOptions } from './compaction.js'
import { AgentError, messageOf } from '../core/errors.js'
import type { AgentEvent, OutputEvent } from '../core/events.js'
import { memoryLog, type LogStore } from '../core/log.js'
import { approveEvent, denyEvent, submitResultEvent, type ApproveOptions, type ExternalResult } from './inputs.js'
import type { Block, Msg } from '../core/messages.js'
import type { ChatModel } from '../models/model.js'
import { admitInput, checkAgentOptions, checkReplyOptions, inputMetadata } from './options.js'
import { ReplyRun, type ReplyOptions } from './replyRun.js'
import { asReply, type Reply } from './text.js'
import { createStore, type Store } from '../core/store.js'
import { checkOutputSchema, recordedOutputSchema, STRUCTURED_OUTPUT_TOOL, toolsForOutput, type StructuredMsg } from './structuredOutput.js'
import { callerTool, type Tool } from './tools.js'
import { descendantEvents$ } from '../subagents/descendants.js'
import { flushChildText } from '../subagents/childText.js'
import { childLinks } from '../subagents/links.js'
import { reviveSubagents } from '../subagents/revive.js'
import type { SubagentLogs } from '../subagents/childLogs.js'
import { ownerOfCall, ownerOfReply, replyTreeUsage, treeRunning, treeWaitingFor, type CallRef } from '../subagents/tree.js'
import { runtimeHintSettings, type RuntimeHintOptions } from './hints.js'

export const DEFAULT_INTERRUPT_TEXT = 'I notice the interruption. How can I help you?'

export interface AgentOptions {
  name: string
  sysPrompt?: string
  model: ChatModel
  tools?: Tool[]
  /** Reasoning-acting rounds per reply before it ends with `exceed_max_iters` (default 50). */
  maxIters?: number
  /** Where the events go (default: in memory). An existing log is restored. */
  log?: LogStore
  session_id?: string
  /** The text of the message an interrupted `reply()` resolves to. */
  interruptText?: string
  /** A zod object schema every reply ends with a value of (a reply's own `output` overrides it). */
  output?: z.ZodType
  /** Summarize the older context before a model call whose estimated input is over a limit. */
  compaction?: CompactionOptions
  /**
   * Add a hint with the current time before a model call when the context has none, or an older
   * one than `intervalHours` (AgentScope's runtime-state injection; off by default). The hint is a
   * HINT_BLOCK in the log, so replay reads no clock.
   */
  runtimeHints?: boolean | RuntimeHintOptions
  clock?: Clock
  /** Where the logs of the sub-agents this agent's agent tools start go (a hub gives its store's sessions; default: in memory). */
  subagentLogs?: SubagentLogs
}

/** A user message (a string, `{ role: 'user', content }` or a full Msg) or an input event. */
export type AgentInput = string | { role: 'user' | 'system'; content: string | Block[]; name?: string } | Msg | AgentEvent

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
  private callerToolNames: string[] = []
  /** The agent's default structured output, and the one of the reply in progress (or the last). */
  private readonly output: z.ZodType | null
  private replyOutput: z.ZodType | null = null

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
    this.output = options.output ?? null
    this.deps = { name, session_id, sysPrompt, model, tools: this.tools, output: null, outputSchema: null, maxIters, runtimeHints, compaction, clock, host: this }
    this.useOutput(this.output)
    this.store = createStore({ reducer: inPlaceReducer(), initialState: restored, log, onEffectError: (error) => this.endAfterEffectError(error) })
    this.store.runEffects([startReply, advanceReply, interruptReply, recordExternalResults], this.deps)
    log.onFailure?.((error) => this.store.fail(error))
    this.events$ = this.store.event$
    this.state$ = this.store.state$
    // Sub-agents of the restored reply are reopened from their logs: a parked one is linked again (an
    // ended one answers its call); one a crash cut is closed, before this reply (deepest first).
    if (restored.status !== 'idle') this.reviveTree(true)
    // A log that ends inside a running reply (the process died) is closed like an interrupt.
    if (restored.status === 'running') for (const event of closeReply(restored, clock, { reason: 'interrupted' })) this.store.dispatch(event)
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
    const result = this.typedOutput(run.result())
    const { status, reply_id } = this.state
    // A reply that ran sub-agents reports the usage of its whole tree in its metadata.
    const tree_usage = result.finished_reason === 'completed' ? replyTreeUsage(result) : null
    const msg = tree_usage ? { ...result, metadata: { ...result.metadata, tree_usage } } : result
    return asReply(msg, status === 'paused' && reply_id === msg.id ? treeWaitingFor(this) : [])
  }

  /**
   * Approves the waiting call (its id, or a call of `waiting_for`, which names its session) and runs the reply on, like
   * reply(). The call may be a sub-agent's (any depth): it is answered there, and the reply goes on
   * once the sub-agents' results come back.
   */
  async approve(call: CallRef, options: ApproveOptions = {}, replyOptions: ReplyOptions = {}): Promise<Reply> {
    const [owner, callId] = this.ownerOf(call)
    return this.reply(approveEvent(owner.state, callId, options, this.deps.clock), replyOptions)
  }

  /** Denies the waiting call (see approve; the model sees the denial) and runs the reply on, like reply(); a sub-agent's call too. */
  async deny(call: CallRef, reason?: string, replyOptions: ReplyOptions = {}): Promise<Reply> {
    const [owner, callId] = this.ownerOf(call)
    return this.reply(denyEvent(owner.state, callId, reason, this.deps.clock), replyOptions)
  }

  /** Gives the result of the waiting external call (see approve; a string is a successful output) and runs the reply on; a sub-agent's call too. */
  async submitResult(call: CallRef, result: ExternalResult, replyOptions: ReplyOptions = {}): Promise<Reply> {
    const [owner, callId] = this.ownerOf(call)
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
  private ownerOf(call: CallRef): [Agent, string] {
    this.reviveTree()
    const named = typeof call === 'object' && call !== null
    const id = named ? call.id : call
    const mine = (!named || (call.session_id ?? this.session_id) === this.session_id) && this.state.waiting_for.some((c) => c.id === id)
    return [mine ? this : ownerOfCall(this, call) ?? this, id]
  }

  /** Starts or resumes a reply exactly as replyStream would (or a sub-agent's, for its input event); its events arrive on `events$`. */
  dispatch(input: AgentInput, options: Pick<ReplyOptions, 'output' | 'externalTools' | 'metadata' | 'traceContext'> = {}): void {
    // A sub-agent's input (its reply id): dispatched there; this reply goes on with its result.
    const owner = this.descendantFor(input)
    if (owner) return owner.dispatch(input, options)
    const event = this.prepare(input, options)
    if (event) this.store.dispatch(event)
  }

  /** Interrupts whatever is running (cancel) or paused (USER_INTERRUPT); resolves when the reply has ended. */
  async interrupt(): Promise<void> {
    this.reviveTree()
    const { status, reply_id } = this.state
    if (this.store.failure) return
    if (status === 'running') this.cancel(reply_id!)
    else if (status === 'paused') this.store.dispatch(createEvent(this.deps.clock, 'USER_INTERRUPT', { reply_id: reply_id! }))
  }

  /** Stops a running reply; does nothing when it is not running (already ended, paused or closing). */
  cancel(reply_id: string): void {
    const state = this.state
    if (state.reply_id !== reply_id || state.status !== 'running' || state.loop?.closing || this.store.failure) return
    // The Stop overtakes the output still queued behind the event being processed (none unless
    // this runs inside a synchronous burst); then what the running sub-agent calls hold of their
    // children's text joins the calls before they close.
    this.store.overtake()
    flushChildText(this)
    this.dispatchClosing([createEvent(this.deps.clock, 'INTERRUPT_REQUESTED', { reply_id })])
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
    if (this.state.status === 'running' && !this.store.failure) {
      this.cancel(this.state.reply_id!)
      await firstValueFrom(merge(this.store.state$.pipe(filter((s) => s.status !== 'running')), this.store.failure$), { defaultValue: null })
    }
    const closers = new Set([...this.tools.values()].flatMap((tool) => (tool.close ? [tool.close] : [])))
    // The sub-agents it ran are closed with it (their tools and logs released too).
    const closing = Promise.allSettled([...[...closers].map(async (close) => close()), ...this.children().map((child) => child.close())])
    this.store.fail(new AgentError('CLOSED', 'The agent is closed; create a new agent to go on.'))
    await this.logStore.close()
    await closing
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
    const run = owner ? this.follow(owner, input as AgentEvent, options) : new ReplyRun(this, this.store, this.prepare(input, options), options)
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

  /**
   * Resumes a sub-agent with `input` and follows this agent's reply, which its results resume. That
   * reply hears nothing while the sub-agents work, so the run also ends when nothing in the tree runs.
   */
  private follow(owner: Agent, input: AgentEvent, options: ReplyOptions): ReplyRun {
    checkReplyOptions(options)
    const run = new ReplyRun(this, this.store, () => owner.dispatch(input), options)
    const settle = () => queueMicrotask(() => {
      if (!treeRunning(this)) run.settle()
      if (run.over) activity.unsubscribe()
    })
    const activity = merge(this.events$, descendantEvents$(this)).subscribe(settle)
    settle()
    return run
  }

  /**
   * Admits input and readies what the reply offers the model (the caller's tools, the structured
   * output); returns the event to dispatch, or null for a no-op.
   */
  private prepare(input: AgentInput, options: ReplyOptions): AgentEvent | null {
    checkReplyOptions(options)
    if (options.output !== undefined) checkOutputSchema(options.output, 'reply')
    const callerTools = options.externalTools?.map(callerTool)
    const event = this.admit(input)
    if (options.signal?.aborted) throw new AgentError('INVALID_OPTION', 'The signal passed to the reply is already aborted; nothing was started.')
    if (callerTools) this.offerCallerTools(callerTools)
    if (event?.type === 'USER_MESSAGE') this.useOutput(options.output ?? this.output)
    else if (event) this.useOutput(this.resumedOutput())
    const metadata = inputMetadata(options)
    if (event && metadata) Object.assign(event.metadata, JSON.parse(JSON.stringify(metadata)))
    // The output schema the reply asks for, so that a process that resumes it asks for the same value.
    if (event?.type === 'USER_MESSAGE' && this.deps.outputSchema) event.metadata.output_schema = this.deps.outputSchema
    return event
  }

  /**
   * The structured output of the reply an input resumes: the schema its USER_MESSAGE recorded, as
   * this process gave it when it started the reply (a zod schema says more than its JSON Schema),
   * or rebuilt from the record in a process that did not; none when none was recorded.
   */
  private resumedOutput(): z.ZodType | null {
    const recorded = this.store.peek((state) => (state.loop?.output_schema ? JSON.stringify(state.loop.output_schema) : null))
    if (recorded === null) return null
    if (this.replyOutput && JSON.stringify(this.deps.outputSchema) === recorded) return this.replyOutput
    return recordedOutputSchema(JSON.parse(recorded) as Record<string, unknown>)
  }

  /** The message with its structured output (the output tool's arguments) parsed by this process's schema, so that its defaults and transforms apply. */
  private typedOutput(msg: Msg): Msg {
    if (!msg.structured_output || !this.replyOutput) return msg
    try {
      const parsed = this.replyOutput.safeParse(msg.structured_output)
      return parsed.success ? { ...msg, structured_output: parsed.data as Record<string, unknown> } : msg
    } catch {
      return msg
    }
  }

  /** Replaces the caller's tools of the previous reply with these (the agent's own tools keep their names). */
  private offerCallerTools(callerTools: Tool[]): void {
    for (const name of this.callerToolNames) this.tools.delete(name)
    this.callerToolNames = callerTools.filter((t) => !this.tools.has(t.name)).map((t) => t.name)
    for (const tool of callerTools) if (!this.tools.has(tool.name)) this.tools.set(tool.name, tool)
  }

  /** The tools and the structured output of the reply about to start or go on. */
  private useOutput(schema: z.ZodType | null): void {
    this.replyOutput = schema
    this.deps.tools = toolsForOutput(this.tools, schema)
    this.deps.output = schema ? STRUCTURED_OUTPUT_TOOL : null
    // What the USER_MESSAGE records: the output tool's input schema, as the model is shown it.
    this.deps.outputSchema = schema ? this.deps.tools.get(STRUCTURED_OUTPUT_TOOL)!.spec.input_schema as Record<string, unknown> : null
  }

  /** Validates input and checks it against the state; returns the event to dispatch, or null for a no-op. */
  private admit(input: AgentInput): AgentEvent | null {
    if (this.store.failure) throw this.store.failure
    const event = admitInput(input, this.deps.clock)
    const verdict = checkInput(this.state, event)
    if (verdict instanceof AgentError) throw verdict
    return verdict === 'noop' ? null : event
  }
}

export const createAgent = (options: AgentOptions): Agent => new Agent(options)
