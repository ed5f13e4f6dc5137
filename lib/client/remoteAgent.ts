// remoteAgent: the agent's surface over HTTP, for browsers and Node. It follows the session's
// events (GET /events from the last seq it holds, again after any dropped connection, skipping what
// it already has; `connection$` says whether that stream is live) and folds them with the same
// reducers as the server, so `replay(remote.log)` equals the server's state. Replies stream from
// POST /replies; leaving one early or aborting its signal interrupts it, as with a local agent.
// No agent logic lives here.
import { BehaviorSubject, Observable, Subject } from 'rxjs'
import { rootReducer } from '../../reducers/root.js'
import { selectEndedReply } from '../../reducers/selectors.js'
import { initialState, type AgentState } from '../../reducers/state.js'
import { DEFAULT_INTERRUPT_TEXT, type AgentInput } from '../agent.js'
import { AbortError, AgentError, describe } from '../errors.js'
import { isOutputEvent, type AgentEvent, type OutputEvent } from '../events.js'
import type { Msg } from '../messages.js'
import { interruptionMsg } from '../replyRun.js'
import { readSse, responseError } from './sse.js'

export interface RemoteAgentOptions {
  /** The server's base URL, e.g. http://127.0.0.1:8787 */
  url: string
  session: string
  token?: string
  fetch?: typeof globalThis.fetch
  /** What `reply()` resolves to on an interrupted reply, as a local agent's `interruptText`; default DEFAULT_INTERRUPT_TEXT. */
  interruptText?: string
}

export interface RemoteReplyOptions {
  /** Aborting it interrupts the reply; the stream then yields the closing events and ends. */
  signal?: AbortSignal
  /** Make `reply()` reject with an AbortError on an interrupted reply instead of resolving. */
  rejectOnInterrupt?: boolean
}

/** The event stream's health: before the first connection, following, or cut and retrying. */
export type RemoteConnection = 'connecting' | 'live' | 'dropped'

export class RemoteAgent {
  readonly session_id: string
  private readonly events = new Subject<AgentEvent>()
  private readonly states: BehaviorSubject<AgentState>
  private readonly connection = new BehaviorSubject<RemoteConnection>('connecting')
  private readonly entries: AgentEvent[] = []
  private readonly waiters: { seq: number; resolve: () => void }[] = []
  private readonly stopped = new AbortController()
  private readonly base: string
  private readonly fetch: typeof globalThis.fetch

  constructor(private readonly options: RemoteAgentOptions) {
    if (typeof options?.url !== 'string' || typeof options.session !== 'string' || !options.session)
      throw new AgentError('INVALID_OPTION', 'remoteAgent needs { url, session }: the server URL and a session id (POST /sessions makes one).')
    if (options.interruptText !== undefined && typeof options.interruptText !== 'string')
      throw new AgentError('INVALID_OPTION', `remoteAgent: interruptText must be a string; received ${describe(options.interruptText)}.`)
    this.session_id = options.session
    this.base = `${options.url.replace(/\/$/, '')}/sessions/${encodeURIComponent(options.session)}`
    this.fetch = options.fetch ?? globalThis.fetch.bind(globalThis)
    this.states = new BehaviorSubject(initialState())
    void this.follow()
  }

  get state(): AgentState { return this.states.value }
  get log(): readonly AgentEvent[] { return this.entries }
  get state$(): Observable<AgentState> { return this.states.asObservable() }
  get events$(): Observable<AgentEvent> { return this.events.asObservable() }
  get connection$(): Observable<RemoteConnection> { return this.connection.asObservable() }

  /** Resolves with the state once every event the server had when called is folded here. */
  async sync(): Promise<AgentState> {
    const { seq } = (await this.call('GET', '')) as AgentState
    await this.reach(seq)
    return this.state
  }

  /**
   * Starts or resumes a reply and yields its output events; leaving early or the signal interrupts
   * it. A stream cut by the network goes on from the session's followed log, from the last seq seen.
   */
  async *replyStream(input: AgentInput | string, options: RemoteReplyOptions = {}): AsyncGenerator<OutputEvent> {
    const response = await this.send('POST', '/replies', { input })
    const onAbort = () => void this.interrupt().catch(() => {})
    options.signal?.addEventListener('abort', onAbort)
    let ended = false
    let seq = 0
    let reply_id: string | null = null
    // The server names a seq (`id:`) only once it is durable; the events yielded since are skipped
    // by their id when the rest is read from the log after a cut.
    const since = new Set<string>()
    try {
      try {
        for await (const message of readSse(response)) {
          const event = message.data as OutputEvent
          if (message.id) {
            seq = Number(message.id) || seq
            since.clear()
          } else since.add(event.id)
          reply_id ??= event.reply_id
          ended = isTerminal(event)
          yield event
        }
      } catch (error) {
        if (error instanceof AgentError || reply_id === null) throw error
      }
      if (!ended && reply_id !== null) yield* this.replyFromLog(reply_id, seq, since)
      ended = true
    } finally {
      options.signal?.removeEventListener('abort', onAbort)
      if (!ended) await this.interrupt().catch(() => {})
    }
  }

  /** The rest of reply `reply_id` after `seq` but the events `seen`, as the followed log receives it. */
  private async *replyFromLog(reply_id: string, seq: number, seen: ReadonlySet<string>): AsyncGenerator<OutputEvent> {
    for (;;) {
      while (seq < this.entries.length) {
        const event = this.entries[seq++]
        if (!isOutputEvent(event) || event.reply_id !== reply_id || seen.has(event.id)) continue
        yield event
        if (isTerminal(event)) return
      }
      await this.reach(seq + 1)
    }
  }

  /**
   * Runs a reply to its end or pause and resolves to its message, as the log holds it here; an
   * interrupted reply resolves to the `interruptText` message (or rejects, with `rejectOnInterrupt`).
   */
  async reply(input: AgentInput | string, options: RemoteReplyOptions = {}): Promise<Msg> {
    let last: OutputEvent | null = null
    for await (const event of this.replyStream(input, options)) last = event
    if (!last) throw new AgentError('INTERNAL', 'The reply stream ended without events.')
    await this.reach(typeof last.metadata.seq === 'number' ? last.metadata.seq : this.entries.length)
    const message = selectEndedReply(this.state, last.reply_id) ?? this.state.reply_msg
    if (!message) throw new AgentError('INTERNAL', `Reply ${last.reply_id} is not in the session's log.`)
    if (last.type !== 'REPLY_END' || last.finished_reason !== 'interrupted') return message
    if (options.rejectOnInterrupt) throw new AbortError(last.reply_id)
    return interruptionMsg(last, message.name, this.options.interruptText ?? DEFAULT_INTERRUPT_TEXT)
  }

  /** Interrupts the running or paused reply; resolves when it has ended. */
  async interrupt(): Promise<void> {
    await this.call('POST', '/interrupt', {})
  }

  dispatch(input: AgentInput | string): Promise<AgentEvent[]> {
    return this.input({ input })
  }
  approve(tool_call_id: string, options: { input?: Record<string, unknown> } = {}): Promise<AgentEvent[]> {
    return this.input({ approve: { tool_call_id, ...options } })
  }
  deny(tool_call_id: string, reason?: string): Promise<AgentEvent[]> {
    return this.input({ deny: { tool_call_id, ...(reason === undefined ? {} : { reason }) } })
  }
  submitResult(tool_call_id: string, result: unknown): Promise<AgentEvent[]> {
    return this.input({ submit: { tool_call_id, result } })
  }

  /** Stops following the session. */
  close(): void {
    this.stopped.abort()
    this.events.complete()
    this.states.complete()
    this.connection.complete()
  }

  private async input(body: unknown): Promise<AgentEvent[]> {
    return ((await this.call('POST', '/input', body)) as { events: AgentEvent[] }).events
  }

  private async call(method: string, path: string, body?: unknown): Promise<unknown> {
    const response = await this.send(method, path, body)
    return response.json()
  }

  private async send(method: string, path: string, body?: unknown): Promise<Response> {
    const headers: Record<string, string> = { accept: 'application/json, text/event-stream' }
    if (body !== undefined) headers['content-type'] = 'application/json'
    if (this.options.token) headers.authorization = `Bearer ${this.options.token}`
    const response = await this.fetch(`${this.base}${path}`, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) })
    if (!response.ok) throw await responseError(response)
    return response
  }

  /** Follows /events from the last seq held, reconnecting with a growing pause after a drop. */
  private async follow(): Promise<void> {
    let pause = 25
    while (!this.stopped.signal.aborted) {
      try {
        const headers: Record<string, string> = { accept: 'text/event-stream' }
        if (this.options.token) headers.authorization = `Bearer ${this.options.token}`
        const response = await this.fetch(`${this.base}/events?from_seq=${this.entries.length}`, { headers, signal: this.stopped.signal })
        if (!response.ok) throw await responseError(response)
        if (this.connection.value !== 'live') this.connection.next('live')
        for await (const message of readSse(response)) {
          this.apply(Number(message.id), message.data as AgentEvent)
          pause = 25
        }
      } catch (error) {
        if (this.stopped.signal.aborted) return
        if (error instanceof AgentError && (error.code === 'NOT_FOUND' || error.code === 'UNAUTHORIZED')) return this.events.error(error)
      }
      if (this.connection.value === 'live') this.connection.next('dropped')
      await new Promise((resolve) => setTimeout(resolve, pause))
      pause = Math.min(pause * 2, 2000)
    }
  }

  private apply(seq: number, event: AgentEvent): void {
    if (seq <= this.entries.length) return
    if (seq !== this.entries.length + 1) throw new AgentError('INVALID_LOG', `Event ${seq} arrived after ${this.entries.length}: a gap; reconnecting.`)
    this.entries.push(event)
    this.states.next(rootReducer(this.states.value, event))
    this.events.next(event)
    for (let i = this.waiters.length - 1; i >= 0; i--) {
      if (this.waiters[i].seq <= seq) this.waiters.splice(i, 1)[0].resolve()
    }
  }

  private reach(seq: number): Promise<void> {
    if (this.entries.length >= seq) return Promise.resolve()
    return new Promise((resolve) => this.waiters.push({ seq, resolve }))
  }
}

const isTerminal = (event: OutputEvent): boolean =>
  event.type === 'REPLY_END' || event.type === 'REQUIRE_USER_CONFIRM' || event.type === 'REQUIRE_EXTERNAL_EXECUTION'

export const remoteAgent = (options: RemoteAgentOptions): RemoteAgent => new RemoteAgent(options)
