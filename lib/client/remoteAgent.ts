// remoteAgent: the agent's surface over HTTP, for browsers and Node, behaving as a local agent does:
// `reply()`, `approve()`, `deny()` and `submitResult()` resolve to the same values, a stream ends
// with the state showing its end, and every way of stopping works. It folds the session's events
// (GET /events, checked like inputs to a store; see received.ts) with the same reducers as the
// server, so `replay(remote.log)` equals the server's state; it follows them only while something
// needs them (follower.ts), so it never keeps a process alive on its own. Replies stream from
// POST /replies; leaving one early or aborting its signal interrupts it. With `descendants` a reply
// stream interleaves the sub-agents' events (tagged with their session): yielded, never folded here;
// cut by the network, it goes on from the events with the sub-agents' (treeResume.ts).
// No agent logic lives here.
import { BehaviorSubject, Observable, type Subject } from 'rxjs'
import type { AgentState } from '../../reducers/state.js'
import { DEFAULT_INTERRUPT_TEXT, type AgentInput } from '../agent/agent.js'
import { SYNC_POINTS } from '../core/commitGate.js'
import { AgentError } from '../core/errors.js'
import { isOutputEvent, type AgentEvent, type OutputEvent } from '../core/events.js'
import type { Reply } from '../agent/text.js'
import { FoldedLog } from './foldedLog.js'
import { Follower, type RemoteConnection } from './follower.js'
import { replyOutcome } from './outcome.js'
import { receivedEvent } from './received.js'
import { DEFAULT_MAX_LINE_BYTES, readSse } from './sse.js'
import { checkRemoteOptions, checkRemoteReplyOptions, type RemoteAgentOptions, type RemoteReplyOptions } from './options.js'
import { Transport } from './transport.js'
import { isDescendantMessage, newTrack, takeDescendant, type ReplyTrack } from './track.js'
import { resumeTree, type TreeSource } from './treeResume.js'
import { replyFromLog } from './fromLog.js'
import { callBody, withTreeWaiting } from './answers.js'
import type { CallRef } from '../subagents/tree.js'
import { RemoteTalk } from './talk.js'
import type { InterruptOptions, InterruptResult, QueueResult, SteerResult } from '../agent/talk.js'

export type { RemoteConnection } from './follower.js'
export type { RemoteAgentOptions, RemoteReplyOptions } from './options.js'

export class RemoteAgent {
  readonly session_id: string
  private readonly connection = new BehaviorSubject<RemoteConnection>('connecting')
  private readonly folded: FoldedLog
  /** Aborts every request and stream in flight when this client ends (close(), or the session is gone). */
  private readonly ending = new AbortController()
  private readonly follower: Follower
  /** The session's events with its sub-agents', for the rest of a cut reply stream asked with `descendants`. */
  private readonly tree: TreeSource
  private readonly transport: Transport
  private readonly talk: RemoteTalk
  private readonly maxLineBytes: number
  private readonly interruptText: string

  constructor(options: RemoteAgentOptions) {
    checkRemoteOptions(options)
    this.session_id = options.session
    this.transport = new Transport({
      base: `${options.url.replace(/\/$/, '')}/sessions/${encodeURIComponent(options.session)}`,
      token: options.token,
      fetch: options.fetch ?? globalThis.fetch.bind(globalThis),
      ending: this.ending.signal,
      failure: () => this.failure,
    })
    this.talk = new RemoteTalk(this.transport, (seq) => this.reach(seq))
    this.maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES
    this.interruptText = options.interruptText ?? DEFAULT_INTERRUPT_TEXT
    this.folded = new FoldedLog(() => this.follower.hold())
    this.follower = new Follower({
      open: async (signal) => readSse(await this.transport.send('GET', `/events?from_seq=${this.folded.entries.length}`, undefined, signal), { maxLineBytes: this.maxLineBytes }),
      apply: (message) => this.folded.apply(receivedEvent(message)),
      fail: (error) => this.fail(error),
    }, this.connection)
    this.tree = {
      session_id: this.session_id,
      open: async (fromSeq, signal) => readSse(await this.transport.send('GET', `/events?descendants=1&from_seq=${fromSeq}`, undefined, signal), { maxLineBytes: this.maxLineBytes, signal }),
      states: this.folded.states,
      reach: (seq) => this.reach(seq),
    }
  }

  /** The fold of the events received so far (up to date while a call is in progress or someone subscribes; `sync()` brings it up to date). */
  get state(): AgentState { return this.folded.states.value }
  get log(): readonly AgentEvent[] { return this.folded.entries }
  /** The state now, then after every event; subscribing follows the session until unsubscribed. */
  get state$(): Observable<AgentState> { return this.held(this.folded.states) }
  /** Every event of the session from the last one held; subscribing follows the session until unsubscribed. */
  get events$(): Observable<AgentEvent> { return this.held(this.folded.events) }
  get connection$(): Observable<RemoteConnection> { return this.held(this.connection) }

  /** Resolves with the state once every event the server had when called is folded here. */
  async sync(): Promise<AgentState> {
    const { seq } = (await this.transport.call('GET', '')) as AgentState
    await this.reach(seq)
    return this.state
  }

  /**
   * Starts or resumes a reply and yields its output events, as a local agent's `replyStream`; once it
   * ends, `state` shows the end or the pause. Leaving early or the signal interrupts it. A stream cut
   * by the network goes on from the session's followed log, from the last seq seen (with
   * `descendants`, from its events with the sub-agents', skipping those already yielded).
   */
  replyStream(input: AgentInput | string, options: RemoteReplyOptions = {}): AsyncGenerator<OutputEvent> {
    return this.stream(input, options, newTrack())
  }

  /**
   * Runs a reply to its end or pause and resolves to what a local `agent.reply()` does: the final
   * message (with `text`), the paused one (with `waiting_for`), the `interruptText` message for an
   * interrupted reply (AbortError with `rejectOnInterrupt`); rejects with ModelError when the model
   * failed, and with the server's coded refusal (AgentError) when the input was refused.
   */
  async reply(input: AgentInput | string, options: RemoteReplyOptions = {}): Promise<Reply> {
    const track = newTrack()
    for await (const _ of this.stream(input, options, track)) void _
    if (track.reply_id === null) throw new AgentError('INTERNAL', 'The reply stream ended without events.')
    return withTreeWaiting(replyOutcome(this.state, this.log, track.reply_id, { interruptText: this.interruptText, rejectOnInterrupt: options.rejectOnInterrupt }, track.stopped), this.state, this.transport)
  }

  /** Interrupts the running or paused reply (`when: 'step'`, `keepQueue` as a local agent); resolves when it has ended and `state` shows it, to what it handed back. */
  interrupt(options?: InterruptOptions): Promise<InterruptResult> { return this.talk.interrupt(options) }
  /** A message for the running reply (see Agent.steer); resolves once `state` shows it. */
  steer(input: AgentInput | string): Promise<SteerResult> { return this.talk.steer(input) }
  /** Queues a message for the next reply (see Agent.queue); resolves once `state` shows it. */
  queue(input: AgentInput | string): Promise<QueueResult> { return this.talk.queue(input) }
  /** Takes a queued message back (UNKNOWN_QUEUED otherwise). */
  unqueue(id: string): Promise<void> { return this.talk.unqueue(id) }

  /** Starts a reply or gives an input event without waiting for the reply; resolves with the events it caused, once `state` holds them. */
  async dispatch(input: AgentInput | string, options: { whilePaused?: 'refuse' | 'interrupt' | 'queue' } = {}): Promise<AgentEvent[]> {
    const caused = await this.input({ input, ...options })
    await this.reach(lastSeq(caused))
    return caused
  }
  /** Approves a waiting call of the tree (its id, or a call of `waiting_for`, which names its session), optionally with edited input, and resolves, like reply(), to the reply it resumed. */
  approve(call: CallRef, options: { input?: Record<string, unknown> } = {}, replyOptions: RemoteReplyOptions = {}): Promise<Reply> {
    return this.resume({ approve: { ...callBody(call), ...options } }, replyOptions)
  }
  /** Denies a waiting call of the tree (the model sees the denial and the reason) and resolves to the reply it resumed. */
  deny(call: CallRef, reason?: string, replyOptions: RemoteReplyOptions = {}): Promise<Reply> {
    return this.resume({ deny: { ...callBody(call), ...(reason === undefined ? {} : { reason }) } }, replyOptions)
  }
  /** Gives the result of a waiting external call of the tree (a string, `{ output, state? }` or any JSON value) and resolves to the reply it resumed. */
  submitResult(call: CallRef, result: unknown, replyOptions: RemoteReplyOptions = {}): Promise<Reply> {
    return this.resume({ submit: { ...callBody(call), result } }, replyOptions)
  }

  /**
   * Stops following the session and ends this client: calls in progress reject with CLOSED (a reply
   * running on the server goes on; `interrupt()` first to stop it), later calls too.
   */
  close(): void {
    this.fail(new AgentError('CLOSED', 'The remote agent is closed; create a new remoteAgent to go on.'))
    this.connection.complete()
  }

  private async *stream(input: AgentInput | string, options: RemoteReplyOptions, track: ReplyTrack): AsyncGenerator<OutputEvent> {
    checkRemoteReplyOptions(options)
    const release = this.follower.hold()
    let ended = false
    let failed = false
    // Aborted once the server has interrupted the reply the caller stopped: the stream ends then,
    // even if the server keeps it open; `stoppedAt` is the seq the server's log had reached.
    const stop = new AbortController()
    let stoppedAt = 0
    let started = false
    const interrupt = () => void this.talk.interruptAt().then(({ seq }) => { stoppedAt = seq }, () => {}).finally(() => stop.abort())
    const onAbort = () => {
      track.stopped = true
      if (started) interrupt()
    }
    const onEnd = () => stop.abort()
    options.signal?.addEventListener('abort', onAbort)
    this.ending.signal.addEventListener('abort', onEnd)
    try {
      const response = await this.transport.send('POST', '/replies', { input, ...(options.descendants && { descendants: true }) })
      started = true
      if (track.stopped) interrupt()
      try {
        for await (const message of readSse(response, { maxLineBytes: this.maxLineBytes, signal: stop.signal })) {
          if (options.descendants && isDescendantMessage(message, this.session_id)) {
            const event = takeDescendant(track, message)
            if (event) yield event
            continue
          }
          const { seq, event } = receivedEvent(message)
          if (seq <= track.last) throw new AgentError('INVALID_EVENT', `The server sent a ${event.type} event with seq ${seq} after seq ${track.last} in one reply stream.`)
          track.last = seq
          if (!isOutputEvent(event)) continue
          if (track.reply_id === null) {
            // Read from the log after a cut, the reply goes on from here (not from an earlier part of it, before a pause).
            track.reply_id = event.reply_id
            track.seq = seq - 1
          }
          if (message.id === undefined) track.since.add(event.id)
          else {
            track.seq = seq
            track.since.clear()
          }
          ended = isTerminal(event)
          yield event
        }
      } catch (error) {
        // A refusal, a bad event or an overlong line ends the stream with its code; a cut network does not.
        if (error instanceof AgentError || track.reply_id === null) {
          failed = true
          throw error
        }
      }
      if (this.failure) throw this.failure
      if (track.reply_id === null) return
      // Cut by the network: the rest from the log (with the sub-agents' events, when asked), to its end
      // or pause; a bad event there ends the stream with its code, as in the reply stream.
      if (!ended && !stop.signal.aborted) {
        try {
          ended = options.descendants ? yield* resumeTree(this.tree, track, stop.signal) : yield* replyFromLog(this.folded, track, true)
        } catch (error) {
          failed = true
          throw error
        }
      }
      if (!ended) {
        // Stopped: the closing events, once the followed log holds what the server had when it answered.
        if (stoppedAt > track.seq) await this.reach(stoppedAt)
        yield* replyFromLog(this.folded, track, false)
      }
      ended = true
      await this.reach(track.seq)
    } catch (error) {
      // Ended with the client (closed, the session gone): whatever broke the stream, that is why.
      throw this.failure ?? error
    } finally {
      options.signal?.removeEventListener('abort', onAbort)
      this.ending.signal.removeEventListener('abort', onEnd)
      // Left early (return() or a throw in the consumer's loop): stop the reply, as a local agent
      // does; left at its end or pause: `state` shows it by the time the loop statement finishes.
      if (started && !ended && !failed && !track.stopped) await this.interrupt().catch(() => {})
      else if (ended && !failed) await this.reach(track.seq).catch(() => {})
      release()
    }
  }

  /**
   * Gives an answer to a call of the paused tree as a reply stream (POST /replies: the server goes on
   * with this session's reply, through the sub-agents' replies, until it ends or the tree parks again).
   */
  private async resume(answer: unknown, options: RemoteReplyOptions): Promise<Reply> {
    checkRemoteReplyOptions(options)
    const track = newTrack()
    const paused = this.state.status === 'paused' ? this.state.reply_id : null
    for await (const _ of this.stream(answer as AgentInput, options, track)) void _
    // A sub-agent parked again: the session's own reply yielded nothing and still waits.
    const reply_id = track.reply_id ?? paused
    if (reply_id === null) throw new AgentError('INTERNAL', 'The reply stream ended without events.')
    const reply = replyOutcome(this.state, this.log, reply_id, { interruptText: this.interruptText, rejectOnInterrupt: options.rejectOnInterrupt }, track.stopped)
    return withTreeWaiting(reply, this.state, this.transport)
  }

  private async input(body: unknown): Promise<AgentEvent[]> {
    return ((await this.transport.call('POST', '/input', body)) as { events: AgentEvent[] }).events
  }

  /** Ends this client with `error`: every waiting call rejects with it, later calls too, and the requests in flight are aborted. */
  private fail(error: AgentError): void {
    if (this.failure) return
    this.folded.fail(error)
    this.follower.stop()
    this.ending.abort()
  }

  private get failure(): AgentError | null {
    return this.folded.failure
  }

  private reach(seq: number): Promise<void> {
    return this.folded.reach(seq)
  }

  /** `subject` as an Observable that follows the session while subscribed. */
  private held<T>(subject: Subject<T>): Observable<T> {
    return new Observable<T>((subscriber) => {
      const release = this.follower.hold()
      const subscription = subject.subscribe(subscriber)
      return () => {
        subscription.unsubscribe()
        release()
      }
    })
  }
}

/** The reply's end or a pause (what a reply stream names with a durable id). */
const isTerminal = (event: OutputEvent): boolean => SYNC_POINTS.has(event.type)

/** The highest seq among `events` (0 for none). */
const lastSeq = (events: readonly AgentEvent[]): number => events.reduce((seq, event) => Math.max(seq, Number(event.metadata.seq) || 0), 0)

export const remoteAgent = (options: RemoteAgentOptions): RemoteAgent => new RemoteAgent(options)
