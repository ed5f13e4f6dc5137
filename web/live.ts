// One open session as the page sees it: a `remoteAgent` (its state is the fold of the session's
// events with the same reducers as the server), the timeline rows built as events arrive, the
// connection's health, and the actions a person takes. Redraws are asked for at most once per
// animation frame, however many events arrive in it. Sub-agents (issue 21): the calls that ran one
// (their TOOL_RESULT_START names the child's session) and, while the reply waits on them, the calls
// its sub-agents wait for (GET /sessions/:id/waiting), answered through this session's /input.
import type { Subscription } from 'rxjs'
import { remoteAgent, type RemoteAgent } from '../lib/client/remoteAgent.js'
import type { AgentEvent } from '../lib/core/events.js'
import { ExternalExecutionResultEvent, ToolResultBlock, UserConfirmResultEvent, UserMsg } from '../lib/core/factories.js'
import type { PermissionRule, ToolCallBlock } from '../lib/core/messages.js'
import type { WaitingCall } from '../lib/agent/text.js'
import type { AskUserAnswer } from '../lib/agent/askUser.js'
import type { AgentState } from '../reducers/state.js'
import { connectDevTools, type DevTools } from './devtools.js'
import { Timeline } from './timeline.js'

export type Connection = 'connecting' | 'live' | 'dropped'

/** How often the page asks again what a tree waits for while only its sub-agents work. */
const ASK_AGAIN_MS = 1000

export interface LiveOptions {
  base: string
  session_id: string
  token?: string
  /** Called (once per frame at most) when anything shown changed. */
  onChange: () => void
  /** A state picked in Redux DevTools, to be shown read-only. */
  onDevToolsJump: (state: AgentState) => void
  /** The session's tree on the server: the calls it waits for, each with its session, and an answer to one (absent: sub-agents' calls are not looked up). */
  tree?: { waiting: () => Promise<WaitingCall[]>; answer: (body: Record<string, unknown>) => Promise<unknown> }
}

export class LiveSession {
  readonly timeline = new Timeline()
  connection: Connection = 'connecting'
  error: string | null = null
  /** The sub-agent session each sub-agent call of the log ran, by call id. */
  readonly children = new Map<string, string>()
  /** The calls this session's sub-agents wait for while its reply waits on them (a new array when it changes). */
  descendantWaits: readonly WaitingCall[] = []
  private looking: string | null = null
  private askAgain: ReturnType<typeof setTimeout> | null = null
  private readonly remote: RemoteAgent
  private readonly subscriptions: Subscription[] = []
  private readonly devtools: DevTools | null
  private frame: number | null = null

  constructor(private readonly options: LiveOptions) {
    this.remote = remoteAgent({ url: options.base, session: options.session_id, token: options.token })
    this.devtools = connectDevTools(`agentlog ${options.session_id}`, this.remote.state, options.onDevToolsJump)
    this.subscriptions.push(
      this.remote.events$.subscribe({
        next: (event) => {
          this.timeline.add(event, (event.metadata.seq as number | undefined) ?? this.remote.log.length)
          if (event.type === 'TOOL_RESULT_START' && typeof event.metadata.child_session_id === 'string') this.children.set(event.tool_call_id, event.metadata.child_session_id)
          this.lookUpDescendants()
          this.devtools?.event(event, this.remote.state)
          this.changed()
        },
        // The session is gone (deleted, or never was) or the token is refused: say so and stop.
        error: (error: unknown) => {
          this.error = error instanceof Error ? error.message : String(error)
          this.changed()
        },
      }),
      this.remote.connection$.subscribe((connection) => {
        this.connection = connection
        this.changed()
      }),
    )
  }

  get state(): AgentState {
    return this.remote.state
  }

  get log(): readonly AgentEvent[] {
    return this.remote.log
  }

  /** Starts a reply (over a paused one: interrupts it first, issue 30); its events arrive on the session's event stream like everyone else's. */
  send(text: string): void {
    this.act(this.remote.dispatch(UserMsg({ content: text }), this.remote.state.status === 'paused' ? { whilePaused: 'interrupt' } : {}))
  }

  /** While a reply runs: queued for the next reply (Enter), or steered into this one ("Send now"). */
  queue(text: string): void {
    this.act(this.remote.queue(text))
  }

  steer(text: string): void {
    this.act(this.remote.steer(text))
  }

  unqueue(id: string): void {
    this.act(this.remote.unqueue(id))
  }

  /** Stop now, or after the step running now ("Stop after this step"). */
  stop(when: 'now' | 'step' = 'now'): void {
    this.act(this.remote.interrupt({ when }))
  }

  /** Approves an asking call, with edited arguments (JSON text) and rules to grant if given (a sub-agent's call: answered where it waits, without rules). */
  approve(call: ToolCallBlock, options: { input?: string; rules?: PermissionRule[] } = {}): void {
    if (this.isDescendants(call)) return this.answerDescendant(call, { approve: { tool_call_id: call.id, ...(options.input === undefined ? {} : { input: JSON.parse(options.input) as unknown }) } })
    const tool_call = options.input === undefined ? call : { ...call, input: options.input }
    this.act(this.remote.dispatch(UserConfirmResultEvent({ reply_id: this.replyId(), confirm_results: [{ confirmed: true, tool_call, rules: options.rules ?? null }] })))
  }

  /** Denies an asking call; the reason, when given, is kept in the log. */
  deny(call: ToolCallBlock, reason?: string): void {
    if (this.isDescendants(call)) return this.answerDescendant(call, { deny: { tool_call_id: call.id, ...(reason === undefined ? {} : { reason }) } })
    this.act(this.remote.deny(call.id, reason))
  }

  /** Answers an external call with the person's result. */
  submit(call: ToolCallBlock, output: string, state: 'success' | 'error'): void {
    if (this.isDescendants(call)) return this.answerDescendant(call, { submit: { tool_call_id: call.id, result: { output, state } } })
    const result = ToolResultBlock({ id: call.id, name: call.name, output, state })
    this.act(this.remote.dispatch(ExternalExecutionResultEvent({ reply_id: this.replyId(), execution_results: [result] })))
  }

  /** Answers the model's question (askUser) with the person's choice(s) or text; the agent checks it against the question. */
  answer(call: ToolCallBlock, answer: AskUserAnswer): void {
    if (this.isDescendants(call)) return this.answerDescendant(call, { submit: { tool_call_id: call.id, result: answer } })
    this.act(this.remote.submitResult(call.id, answer))
  }

  /** True while the reply waits only on sub-agents that work (none of their calls waits for the person). */
  get subagentsWork(): boolean {
    const { status, waiting_for } = this.remote.state
    return status === 'paused' && !this.descendantWaits.length && waiting_for.every((c) => this.children.has(c.id))
  }

  /** A sub-agent's session, followed like this one (read-only: its calls are answered through this session). */
  child(session_id: string, onChange: () => void): LiveSession {
    const { base, token } = this.options
    return new LiveSession({ base, token, session_id, onChange, onDevToolsJump: () => undefined })
  }

  close(): void {
    if (this.askAgain !== null) clearTimeout(this.askAgain)
    this.looking = 'closed'
    this.subscriptions.forEach((s) => s.unsubscribe())
    this.devtools?.close()
    if (this.frame !== null) cancelAnimationFrame(this.frame)
    this.remote.close()
  }

  /** A call one of this session's sub-agents waits for. */
  private isDescendants(call: ToolCallBlock): boolean {
    return this.descendantWaits.some((c) => c.id === call.id)
  }

  /**
   * Answers a sub-agent's call through this session (the server finds where it waits); its form goes
   * at once, and the tree is asked again once the answer is in (the sub-agent may wait again).
   */
  private answerDescendant(call: ToolCallBlock, body: Record<string, unknown>): void {
    this.descendantWaits = this.descendantWaits.filter((c) => c.id !== call.id)
    this.act((this.options.tree?.answer(body) ?? Promise.resolve()).finally(() => this.lookAgain(null)))
  }

  /** Once per pause on a sub-agent call: asks the server what the tree waits for. */
  private lookUpDescendants(): void {
    const { status, reply_id, waiting_for, seq } = this.remote.state
    const onChildren = status === 'paused' && waiting_for.some((c) => this.children.has(c.id))
    if (!onChildren) {
      this.looking = null
      if (this.descendantWaits.length) this.descendantWaits = []
      return
    }
    const key = `${reply_id}@${seq}`
    if (!this.options.tree || this.looking === key) return
    this.looking = key
    this.options.tree.waiting().then((calls) => {
      if (this.looking !== key) return
      this.descendantWaits = calls.filter((c) => c.session_id !== this.options.session_id)
      this.changed()
      // Nothing to answer yet: a sub-agent works (its log is not this one), so ask again in a while.
      if (!this.descendantWaits.length) this.askAgain = setTimeout(() => this.lookAgain(key), ASK_AGAIN_MS)
    }, () => undefined)
  }

  private lookAgain(key: string | null): void {
    if (this.askAgain !== null) clearTimeout(this.askAgain)
    this.askAgain = null
    if (this.looking === 'closed' || (key !== null && this.looking !== key)) return
    this.looking = null
    this.lookUpDescendants()
  }

  private replyId(): string {
    return this.remote.state.reply_id ?? ''
  }

  private act(work: Promise<unknown>): void {
    this.error = null
    work.catch((error: unknown) => {
      this.error = error instanceof Error ? error.message : String(error)
      this.changed()
    })
    this.changed()
  }

  private changed(): void {
    if (this.frame !== null) return
    this.frame = requestAnimationFrame(() => {
      this.frame = null
      this.options.onChange()
    })
  }
}
