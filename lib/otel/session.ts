// The spans of one session's log, one event at a time: the fold both traceLog (a stored log) and
// instrument() (events as they are appended) run, so live and rebuilt traces are the same. It holds
// the reply in progress only: memory does not grow with the log. Sub-agent links: a child's first
// REPLY_START names its parent call (metadata.parent, issue 21) and hangs under that call's span.
import { ROOT_CONTEXT, trace, type Context, type SpanContext } from '@opentelemetry/api'
import type { AgentEvent } from '../core/events.js'
import { timeOf } from './attributes.js'
import { recordedContext } from './context.js'
import { parentOf } from './links.js'
import { ReplyTrace, type At } from './reply.js'
import type { TraceSettings } from './settings.js'

/** The execute_tool spans that sub-agents' replies hang under, by parent session and call. */
export class SubAgentLinks {
  private readonly spans = new Map<string, SpanContext>()
  /** While held, the links of calls that ended (dropped when the hold ends). */
  private endedWhileHeld: string[] | null = null
  /** retain: keep every link (traceLog over a tree of logs); otherwise a link goes once used or once its call ends. */
  constructor(private readonly retain: boolean) {}

  /** Links held now (live: the calls running, so it does not grow with the sessions served). */
  get size(): number {
    return this.spans.size
  }

  offer(session_id: string, tool_call_id: string, span: SpanContext): void {
    this.spans.set(key(session_id, tool_call_id), span)
  }

  ended(session_id: string, tool_call_id: string): void {
    if (this.retain) return
    if (this.endedWhileHeld) this.endedWhileHeld.push(key(session_id, tool_call_id))
    else this.spans.delete(key(session_id, tool_call_id))
  }

  /** Runs `fold` keeping the links of calls that end in it until it is over (a tree's logs caught up parent first). */
  hold(fold: () => void): void {
    if (this.retain || this.endedWhileHeld) return fold()
    this.endedWhileHeld = []
    try {
      fold()
    } finally {
      for (const ended of this.endedWhileHeld) this.spans.delete(ended)
      this.endedWhileHeld = null
    }
  }

  /** The context a reply hangs under when its REPLY_START names a parent call. */
  parentOf(event: AgentEvent): Context | null {
    const parent = parentOf(event)
    if (!parent) return null
    const span = this.spans.get(key(parent.session_id, parent.tool_call_id))
    if (!span) return null
    if (!this.retain) this.spans.delete(key(parent.session_id, parent.tool_call_id))
    return trace.setSpanContext(ROOT_CONTEXT, span)
  }
}

const key = (session_id: string, tool_call_id: string) => `${session_id}\u0000${tool_call_id}`

/** Events that change no span unless contents are recorded: skipped at the cost of one lookup (streamed deltas). */
const CONTENT_ONLY: ReadonlySet<string> = new Set([
  'TEXT_BLOCK_START', 'TEXT_BLOCK_DELTA', 'TEXT_BLOCK_END', 'THINKING_BLOCK_START', 'THINKING_BLOCK_DELTA', 'THINKING_BLOCK_END',
  'DATA_BLOCK_START', 'DATA_BLOCK_DELTA', 'DATA_BLOCK_END', 'HINT_BLOCK', 'TOOL_CALL_DELTA', 'TOOL_RESULT_TEXT_DELTA', 'TOOL_RESULT_DATA_DELTA',
])

export class SessionTrace {
  /** The last event seen and its position (its time and seq are read only when a span needs them). */
  private lastEvent: AgentEvent | null = null
  private position = 0
  private input: { event: AgentEvent; at: At } | null = null
  private reply: ReplyTrace | null = null

  constructor(private readonly settings: TraceSettings, private readonly links: SubAgentLinks, private session_id: string) {}

  push(event: AgentEvent): void {
    const seq = event.metadata.seq
    const position = typeof seq === 'number' ? seq : this.position + 1
    if (this.settings.captureContent || !CONTENT_ONLY.has(event.type)) this.apply(event, { seq: position, time: timeOf(event) })
    this.position = position
    this.lastEvent = event
  }

  private get last(): At {
    return { seq: this.position, time: this.lastEvent ? timeOf(this.lastEvent) : 0 }
  }

  /** Goes on with a parked reply whose start this process never saw (before a snapshot): its answer opens a segment (no link, no waiting time). */
  adopt(reply_id: string, agent: string, session_id: string): void {
    this.reply = new ReplyTrace(this.settings, reply_id, agent, session_id, ROOT_CONTEXT)
  }

  /** The reply in progress parked (instrument() sees it from the state): its segment ends at the last event. */
  pause(): void {
    if (this.reply && !this.reply.isPaused) this.reply.pause(this.last)
  }

  /** The log ends here: a parked reply's segment ends at its pause, a running one's spans at the last event (in progress). */
  finish(): void {
    this.reply?.cut(this.last)
    this.reply = null
  }

  /** The id of the reply in progress (running or parked), or null. */
  get reply_id(): string | null {
    return this.reply?.reply_id ?? null
  }

  private apply(event: AgentEvent, at: At): void {
    if (event.type === 'USER_MESSAGE') {
      this.input = { event, at }
      return
    }
    if (event.type === 'REPLY_START') {
      this.reply?.cut(this.last)
      this.session_id = event.session_id
      const input = this.input
      const parent = this.links.parentOf(event) ?? (input && recordedContext(input.event)) ?? ROOT_CONTEXT
      this.reply = new ReplyTrace(this.settings, event.reply_id, event.name, event.session_id, parent)
      this.reply.start(input?.event ?? null, input?.at ?? at)
      this.input = null
      return
    }
    const reply = this.reply
    if (!reply || !('reply_id' in event) || event.reply_id !== reply.reply_id) return
    switch (event.type) {
      case 'USER_CONFIRM_RESULT':
      case 'EXTERNAL_EXECUTION_RESULT':
        reply.resume(event, at, this.last, recordedContext(event))
        return reply.push(event, at)
      case 'USER_INTERRUPT':
        reply.requestStop('user_interrupt', at.time)
        if (reply.isPaused || reply.waitsForAnswer) reply.resume(event, at, this.last, recordedContext(event))
        return
      case 'INTERRUPT_REQUESTED':
        return reply.requestStop('signal', at.time)
      case 'REPLY_END':
        reply.end(event, at)
        this.reply = null
        return
      case 'TOOL_RESULT_START': {
        reply.push(event, at)
        // Any call may run a sub-agent: its span is offered until the call ends (or, in a tree of logs, kept).
        const span = reply.toolSpan(event.tool_call_id)
        if (span && trace.isSpanContextValid(span)) this.links.offer(this.session_id, event.tool_call_id, span)
        return
      }
      case 'TOOL_RESULT_END':
        reply.push(event, at)
        return this.links.ended(this.session_id, event.tool_call_id)
      default:
        return reply.push(event, at)
    }
  }
}
