// Talking to a running agent (issue 30): steer (a message that joins the running reply at its next
// step boundary), queue / unqueue (messages that start the next replies), and the Stops a person
// makes (now, or gently after the step: `when: 'step'`), which hand the waiting messages back unless
// `keepQueue`. Each is one event; what it means for the reply is decided by the reducers and the planner.
import type { Clock } from '../core/clock.js'
import { createEvent } from '../core/clock.js'
import { AgentError, describe } from '../core/errors.js'
import type { AgentEvent } from '../core/events.js'
import type { Msg } from '../core/messages.js'
import type { LogStore } from '../core/log.js'
import type { Store } from '../core/store.js'
import { queuedToStart } from '../../reducers/selectors.js'
import type { QueueEntry } from '../../reducers/state.js'
import { admitInput, checkReplyOptions } from './options.js'
import type { QueuedStart } from './replyRun.js'

export interface InterruptOptions {
  /** 'now' (default) stops at once; 'step' lets the model call and tools running now finish, then stops. */
  when?: 'now' | 'step'
  /** Keep the waiting messages (queue and steers that did not join): the first starts at once. */
  keepQueue?: boolean
}

/** What interrupt() resolves to: the messages it handed back (not started). */
export interface InterruptResult {
  queue: QueueEntry[]
}

/** What a steer resolves to once recorded: its message id, and the reply it joins (null: it started a reply). */
export interface SteerResult {
  id: string
  reply_id: string | null
}

/** Options of steer(), queue() and unqueue(). */
export interface TalkOptions {
  /** JSON recorded in the event's `metadata` (a trace id, the id of the request it answers). */
  metadata?: Record<string, unknown>
}

export interface QueueResult {
  id: string
  /** Its place in the queue when it was acknowledged (0: next). */
  position: number
}

/** What the talk needs of its agent (structural, so this module imports no agent). */
export interface TalkHost {
  readonly log: readonly AgentEvent[]
  /** Starts a reply with the message, as dispatch(input) would (`metadata` recorded on its USER_MESSAGE). */
  startWith(msg: Msg, metadata: Record<string, unknown>): void
  /** Stops the running reply now; `keepQueue` records that the waiting messages stay. */
  cancelNow(reply_id: string, keepQueue: boolean): void
  /** The sub-agents running under the reply (a gentle stop reaches each at its own next step). */
  runningChildren(): { interrupt(options: InterruptOptions): Promise<InterruptResult> }[]
}

export class Talk {
  constructor(private readonly store: Store, private readonly clock: Clock, private readonly host: TalkHost) {}

  steer(input: unknown, options: TalkOptions = {}): SteerResult {
    const msg = this.message(input, 'steer')
    const metadata = metadataOf(options, 'steer')
    const { status, reply_id } = this.store.getState()
    if (status === 'idle') {
      this.host.startWith(msg, metadata)
      return { id: msg.id, reply_id: null }
    }
    this.store.dispatch(createEvent(this.clock, 'MESSAGE_STEERED', { reply_id: reply_id!, msg, metadata }))
    return { id: msg.id, reply_id }
  }

  queue(input: unknown, options: TalkOptions = {}): QueueResult {
    const msg = this.message(input, 'queue')
    const metadata = metadataOf(options, 'queue')
    const position = this.store.getState().queue.length
    this.store.dispatch(createEvent(this.clock, 'MESSAGE_QUEUED', { msg, first: false, metadata }))
    return { id: msg.id, position }
  }

  unqueue(id: unknown, options: TalkOptions = {}): void {
    const metadata = metadataOf(options, 'unqueue')
    this.usable()
    const queue = this.store.getState().queue
    if (typeof id !== 'string' || !queue.some((e) => e.id === id))
      throw new AgentError('UNKNOWN_QUEUED', `No queued message has the id ${describe(id)}; queued now: ${queue.map((e) => e.id).join(', ') || 'none'}. Use the id queue() resolved to, while the message still waits (agent.state.queue).`)
    this.store.dispatch(createEvent(this.clock, 'MESSAGE_UNQUEUED', { msg_id: id, metadata }))
  }

  async interrupt(options: InterruptOptions = {}): Promise<InterruptResult> {
    const { when, keepQueue } = checkInterruptOptions(options)
    const state = this.store.getState()
    const { status, reply_id } = state
    if (this.store.failure || status === 'idle' || !reply_id) return { queue: [] }
    const from = this.host.log.length
    if (status === 'paused') this.store.dispatch(createEvent(this.clock, 'USER_INTERRUPT', { reply_id, metadata: keepQueue ? { keep_queue: true } : {} }))
    else if (when === 'now') this.host.cancelNow(reply_id, keepQueue)
    else {
      // A second gentle stop waits with the first (a routed one applied twice changes nothing).
      if (!state.loop?.closing && !state.loop?.stopping) this.store.dispatch(createEvent(this.clock, 'STOP_REQUESTED', { reply_id, when: 'step', keep_queue: keepQueue }))
      // Each running sub-agent stops at its own next step; the call of one that finished gets its result.
      await Promise.all(this.host.runningChildren().map((child) => child.interrupt({ when: 'step', keepQueue })))
      await this.ended(reply_id)
    }
    return { queue: this.returned(reply_id, from) }
  }

  /** Resolves once reply `reply_id` is over (or the store broke). */
  private ended(reply_id: string): Promise<void> {
    const over = () => this.store.failure !== null || this.store.peek((s) => s.reply_id !== reply_id || s.status === 'idle')
    if (over()) return Promise.resolve()
    return new Promise((resolve) => {
      const done = () => {
        if (!over()) return
        unsubscribe()
        failure.unsubscribe()
        resolve()
      }
      const unsubscribe = this.store.subscribe(done)
      const failure = this.store.failure$.subscribe(done)
    })
  }

  /** The messages the QUEUE_RETURNED of `reply_id` after position `from` handed back. */
  private returned(reply_id: string, from: number): QueueEntry[] {
    const log = this.host.log
    const entries: QueueEntry[] = []
    for (let i = from; i < log.length; i++) {
      const event = log[i]
      if (event.type === 'QUEUE_RETURNED' && event.reply_id === reply_id) entries.push(...event.returned)
    }
    return entries
  }

  /** Starts the first queued message when no reply runs (a restored agent whose log stopped before it started). */
  startQueue(): void {
    const entry = queuedToStart(this.store.getState())
    if (entry && !this.store.failure) this.store.dispatch(createEvent(this.clock, 'USER_MESSAGE', { msg: entry.msg, metadata: { queued: true } }))
  }

  /**
   * A user message sent while the reply is paused, as `mode` says (ReplyOptions.whilePaused): the
   * start of the reply it begins (queued, first for 'interrupt'), or null to admit it as usual.
   */
  whilePaused(input: unknown, mode: 'refuse' | 'interrupt' | 'queue' | undefined): QueuedStart | null {
    if (mode !== undefined && mode !== 'refuse' && mode !== 'interrupt' && mode !== 'queue') throw new AgentError('INVALID_OPTION', `whilePaused must be 'refuse', 'interrupt' or 'queue'; received ${describe(mode)}.`)
    const state = this.store.getState()
    if (!mode || mode === 'refuse' || state.status !== 'paused' || this.store.failure) return null
    const event = admitInput(input, this.clock)
    if (event.type !== 'USER_MESSAGE') return null
    const { msg } = event
    const reply_id = state.reply_id!
    return {
      startsWith: msg.id,
      send: () => {
        this.store.dispatch(createEvent(this.clock, 'MESSAGE_QUEUED', { msg, first: mode === 'interrupt' }))
        if (mode === 'interrupt') this.store.dispatch(createEvent(this.clock, 'USER_INTERRUPT', { reply_id, metadata: { keep_queue: true } }))
      },
    }
  }

  private usable(): void {
    if (this.store.failure) throw this.store.failure
  }

  /** The user message `input` makes (a string, a message), or INVALID_INPUT for anything else. */
  private message(input: unknown, verb: string): Msg {
    this.usable()
    const event = admitInput(input, this.clock)
    if (event.type !== 'USER_MESSAGE') throw new AgentError('INVALID_INPUT', `${verb}() takes a message (a string or UserMsg({ content })); received a ${event.type} event. Send input events with reply().`)
    return event.msg
  }
}

const metadataOf = (options: unknown, verb: string): Record<string, unknown> => {
  if (typeof options !== 'object' || options === null) throw new AgentError('INVALID_OPTION', `${verb}() takes { metadata? }; received ${describe(options)}.`)
  const { metadata } = options as TalkOptions
  if (metadata === undefined) return {}
  checkReplyOptions({ metadata })
  return JSON.parse(JSON.stringify(metadata)) as Record<string, unknown>
}

const checkInterruptOptions = (options: unknown): Required<InterruptOptions> => {
  if (typeof options !== 'object' || options === null) throw new AgentError('INVALID_OPTION', `interrupt() takes { when?, keepQueue? }; received ${describe(options)}.`)
  const { when = 'now', keepQueue = false } = options as InterruptOptions
  if (when !== 'now' && when !== 'step') throw new AgentError('INVALID_OPTION', `interrupt(): when must be 'now' or 'step'; received ${describe(when)}.`)
  if (typeof keepQueue !== 'boolean') throw new AgentError('INVALID_OPTION', `interrupt(): keepQueue must be a boolean; received ${describe(keepQueue)}.`)
  return { when, keepQueue }
}

/** The name of the CUSTOM event a fork's log holds after the events it kept (lib/timeTravel/forkLog.ts). */
const FORK_MARKER = 'agentlog.fork'

/** The log's event at `seq` is a fork's marker: an agent restored on it starts nothing by itself. */
export const endsWithFork = (log: LogStore, seq: number): boolean => {
  try {
    const [event] = seq > 0 ? log.read({ fromSeq: seq - 1 }) : []
    return event?.type === 'CUSTOM' && event.name === FORK_MARKER
  } catch {
    return false // a store that loaded only the events after its snapshot: a fork's marker is never the snapshot's last event
  }
}
