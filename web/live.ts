// One open session as the page sees it: a `remoteAgent` (its state is the fold of the session's
// events with the same reducers as the server), the timeline rows built as events arrive, the
// connection's health, and the actions a person takes. Redraws are asked for at most once per
// animation frame, however many events arrive in it.
import type { Subscription } from 'rxjs'
import { remoteAgent, type RemoteAgent } from '../lib/client/remoteAgent.js'
import type { AgentEvent } from '../lib/events.js'
import { ExternalExecutionResultEvent, ToolResultBlock, UserConfirmResultEvent, UserMsg } from '../lib/factories.js'
import type { PermissionRule, ToolCallBlock } from '../lib/messages.js'
import type { AgentState } from '../reducers/state.js'
import { connectDevTools, type DevTools } from './devtools.js'
import { Timeline } from './timeline.js'

export type Connection = 'connecting' | 'live' | 'dropped'

export interface LiveOptions {
  base: string
  session_id: string
  token?: string
  /** Called (once per frame at most) when anything shown changed. */
  onChange: () => void
  /** A state picked in Redux DevTools, to be shown read-only. */
  onDevToolsJump: (state: AgentState) => void
}

export class LiveSession {
  readonly timeline = new Timeline()
  connection: Connection = 'connecting'
  error: string | null = null
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

  /** Starts a reply; its events arrive on the session's event stream like everyone else's. */
  send(text: string): void {
    this.act(this.remote.dispatch(UserMsg({ content: text })))
  }

  stop(): void {
    this.act(this.remote.interrupt())
  }

  /** Approves an asking call, with edited arguments (JSON text) and rules to grant if given. */
  approve(call: ToolCallBlock, options: { input?: string; rules?: PermissionRule[] } = {}): void {
    const tool_call = options.input === undefined ? call : { ...call, input: options.input }
    this.act(this.remote.dispatch(UserConfirmResultEvent({ reply_id: this.replyId(), confirm_results: [{ confirmed: true, tool_call, rules: options.rules ?? null }] })))
  }

  /** Denies an asking call; the reason, when given, is kept in the log. */
  deny(call: ToolCallBlock, reason?: string): void {
    this.act(this.remote.deny(call.id, reason))
  }

  /** Answers an external call with the person's result. */
  submit(call: ToolCallBlock, output: string, state: 'success' | 'error'): void {
    const result = ToolResultBlock({ id: call.id, name: call.name, output, state })
    this.act(this.remote.dispatch(ExternalExecutionResultEvent({ reply_id: this.replyId(), execution_results: [result] })))
  }

  close(): void {
    this.subscriptions.forEach((s) => s.unsubscribe())
    this.devtools?.close()
    if (this.frame !== null) cancelAnimationFrame(this.frame)
    this.remote.close()
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
