// The session as the remote client holds it: the events received, in order and without gaps, and
// their fold with the same reducers as the server (`replay(entries)` is `state`). Callers wait here
// for a seq to arrive; a failure (the client closed, the session gone) rejects every waiter and
// every later wait, and ends `events` with the error (CLOSED completes it instead).
import { BehaviorSubject, Subject } from 'rxjs'
import { rootReducer } from '../../reducers/root.js'
import { initialState, type AgentState } from '../../reducers/state.js'
import { AgentError, describe } from '../core/errors.js'
import type { AgentEvent } from '../core/events.js'

interface Waiter {
  seq: number
  resolve: () => void
  reject: (error: AgentError) => void
}

export class FoldedLog {
  readonly entries: AgentEvent[] = []
  readonly events = new Subject<AgentEvent>()
  readonly states = new BehaviorSubject<AgentState>(initialState())
  /** CLOSED after close(); NOT_FOUND, UNAUTHORIZED or a bad stream's code once following failed for good. */
  failure: AgentError | null = null
  private readonly waiters: Waiter[] = []

  /** `follow` is called while someone waits; the function it returns when they stop. */
  constructor(private readonly follow: () => () => void) {}

  /** Folds one checked event (true); an event already held is skipped (false), one past a gap refused (the stream is read again). */
  apply({ seq, event }: { seq: number; event: AgentEvent }): boolean {
    if (seq <= this.entries.length) return false
    if (seq !== this.entries.length + 1) throw new AgentError('INVALID_LOG', `Event ${seq} arrived after ${this.entries.length}: a gap; reading again from ${this.entries.length}.`)
    let next: AgentState
    try {
      next = rootReducer(this.states.value, event)
    } catch (error) {
      throw new AgentError('INVALID_EVENT', `The server sent a ${event.type} event (seq ${seq}) the state cannot take: ${describe(error)}.`)
    }
    this.entries.push(event)
    this.states.next(next)
    this.events.next(event)
    for (let i = this.waiters.length - 1; i >= 0; i--) {
      if (this.waiters[i].seq <= seq) this.waiters.splice(i, 1)[0].resolve()
    }
    return true
  }

  /** Resolves once the log holds `seq` events (following meanwhile); rejects when the client ends. */
  reach(seq: number): Promise<void> {
    if (this.entries.length >= seq) return Promise.resolve()
    if (this.failure) return Promise.reject(this.failure)
    const release = this.follow()
    return new Promise<void>((resolve, reject) => this.waiters.push({ seq, resolve, reject })).finally(release)
  }

  /** Ends the log with `error` (the first failure wins). */
  fail(error: AgentError): void {
    if (this.failure) return
    this.failure = error
    for (const waiter of this.waiters.splice(0)) waiter.reject(error)
    if (error.code === 'CLOSED') {
      this.events.complete()
      this.states.complete()
    } else this.events.error(error)
  }
}
