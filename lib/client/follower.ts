// Following a session's events for the remote client, only while someone needs them: a reply, a
// sync or an approval in progress, or a subscriber to the client's streams each hold the follower;
// with no holder the connection is closed, so an idle client keeps no socket or timer (a Node
// process can exit). It reads GET /events from the last seq held, again after any dropped or bad
// stream (with a growing pause), and stops for good on NOT_FOUND or UNAUTHORIZED, or when the
// server sends a bad stream (a bad event, a gap, an overlong line) at the same place several times.
import type { BehaviorSubject } from 'rxjs'
import { pause } from '../core/abort.js'
import { AgentError } from '../core/errors.js'
import type { SseMessage } from './sse.js'

export type RemoteConnection = 'connecting' | 'live' | 'dropped'

export interface FollowerTarget {
  /** Opens the event stream after `fromSeq`; rejects with the server's coded refusal. */
  open(signal: AbortSignal): Promise<AsyncIterable<SseMessage>>
  /** Takes one message (true when it was new); throws a coded error on a bad one (the stream is then read again from the last good seq). */
  apply(message: SseMessage): boolean
  /** The session is gone or the token refused: following ends for good. */
  fail(error: AgentError): void
}

const FIRST_PAUSE_MS = 25
const LAST_PAUSE_MS = 2000
/** Reads in a row that end with a bad stream before any event is taken: then the server is broken for this session. */
const MAX_BAD_READS = 3

const isFinal = (error: unknown): error is AgentError => error instanceof AgentError && (error.code === 'NOT_FOUND' || error.code === 'UNAUTHORIZED')
const isBadStream = (error: unknown): error is AgentError =>
  error instanceof AgentError && (error.code === 'INVALID_EVENT' || error.code === 'INVALID_LOG' || error.code === 'TOO_LARGE')


export class Follower {
  private holders = 0
  private run: AbortController | null = null
  private stopped = false

  constructor(private readonly target: FollowerTarget, private readonly connection: BehaviorSubject<RemoteConnection>) {}

  /** Follows until the returned function is called (by every holder). */
  hold(): () => void {
    if (this.stopped) return () => {}
    this.holders++
    if (!this.run) {
      this.run = new AbortController()
      void this.follow(this.run.signal)
    }
    let held = true
    return () => {
      if (!held) return
      held = false
      if (--this.holders === 0) this.rest()
    }
  }

  /** Stops following for good. */
  stop(): void {
    this.stopped = true
    this.rest()
  }

  private rest(): void {
    this.run?.abort()
    this.run = null
    if (!this.stopped && this.connection.value !== 'connecting') this.connection.next('connecting')
  }

  private async follow(signal: AbortSignal): Promise<void> {
    let wait = FIRST_PAUSE_MS
    let badReads = 0
    while (!signal.aborted) {
      let taken = false
      try {
        const messages = await this.target.open(signal)
        if (signal.aborted) return
        if (this.connection.value !== 'live') this.connection.next('live')
        for await (const message of messages) {
          if (signal.aborted) return
          if (!this.target.apply(message)) continue
          taken = true
          wait = FIRST_PAUSE_MS
          badReads = 0
        }
      } catch (error) {
        if (signal.aborted) return
        badReads = isBadStream(error) && !taken ? badReads + 1 : 0
        if (isFinal(error) || badReads >= MAX_BAD_READS) {
          this.stop()
          return this.target.fail(error as AgentError)
        }
      }
      if (this.connection.value === 'live') this.connection.next('dropped')
      await pause(wait, signal)
      wait = Math.min(wait * 2, LAST_PAUSE_MS)
    }
  }
}
