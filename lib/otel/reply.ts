// The spans of one reply, built from its events as they come: an `invoke_agent` span per segment
// (a reply that parks ends its segment at the pause; the answer opens a new one linked to it), a
// `chat` span per model call and an `execute_tool` span per tool result, each started and ended at
// the log's own timestamps. Closing events that no stop request explains are held until REPLY_END
// says what they were: a model failure (error) or the close of a reply a crash cut (crash_recovery).
import { SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span, type SpanContext } from '@opentelemetry/api'
import type { AgentEvent, EventOf } from '../core/events.js'
import { AGENTLOG, GEN_AI, usageAttributes, type InterruptSource, type UsageFields } from './attributes.js'
import { childSessionOf } from './links.js'
import { DEFAULT_MAX_CONTENT_LENGTH, type TraceSettings } from './settings.js'

interface Stop { source: InterruptSource; at: number }
type Cause = { kind: 'interrupt'; stop: Stop } | { kind: 'error'; type: string }
interface Chat { span: Span; start: number; model: string; calls: number; usage: UsageFields }
interface ToolRun { span: Span; start: number; name: string }

/** Where an event sits: its seq (metadata.seq, or its position) and its time in epoch ms. */
export interface At { seq: number; time: number }

export class ReplyTrace {
  private segment: Span | null = null
  private segmentIndex = 0
  private segmentStart: At | null = null
  private paused: { span: SpanContext; at: number } | null = null
  private chat: Chat | null = null
  private readonly tools = new Map<string, ToolRun>()
  /** Calls waiting for a confirmation or an external result (the pause, when nothing else runs). */
  private readonly waiting = new Set<string>()
  private stop: Stop | null = null
  private held: ((cause: Cause) => void)[] = []
  /** The time of the first closing event held for its cause (a crash's close happens there). */
  private heldAt: number | null = null
  private readonly content: { text: string; args: Map<string, string>; results: Map<string, string>; max: number } | null

  constructor(
    private readonly settings: TraceSettings,
    readonly reply_id: string,
    private readonly agent: string,
    private readonly session_id: string,
    /** Where the reply's segments hang: the recorded trace context, a sub-agent's parent tool span, or a new trace. */
    private readonly parent: Context,
  ) {
    this.content = settings.captureContent ? { text: '', args: new Map(), results: new Map(), max: settings.maxContentLength ?? DEFAULT_MAX_CONTENT_LENGTH } : null
  }

  /** The reply starts (REPLY_START) with the input that asked for it. */
  start(input: AgentEvent | null, at: At): void {
    this.openSegment(input, at, this.parent)
  }

  /** True while the reply's segment is open but nothing runs and some call waits: the log ends or an answer comes here. */
  get waitsForAnswer(): boolean {
    if (this.segment === null || this.waiting.size === 0 || this.chat !== null) return false
    // An external call's result started before the pause: it runs outside, it is what the reply waits for.
    for (const id of this.tools.keys()) if (!this.waiting.has(id)) return false
    return true
  }

  get isPaused(): boolean {
    return this.segment === null
  }

  /** The reply parked: its segment ends at `at` (the last event before the pause). */
  pause(at: At): void {
    const span = this.segment
    if (!span) return
    span.setAttributes({ [AGENTLOG.seqEnd]: at.seq, [AGENTLOG.paused]: true, [AGENTLOG.waitingFor]: [...this.waiting] })
    span.end(at.time)
    this.paused = { span: span.spanContext(), at: at.time }
    this.segment = null
  }

  /** An answer (or USER_INTERRUPT) resumes the parked reply in a new segment linked to the paused one. */
  resume(input: AgentEvent, at: At, last: At, parent: Context | null): void {
    if (this.segment) this.pause(last)
    this.openSegment(input, at, parent ?? this.parent)
  }

  requestStop(source: InterruptSource, time: number): void {
    this.stop ??= { source, at: time }
  }

  push(event: AgentEvent, at: At): void {
    switch (event.type) {
      case 'MODEL_CALL_START':
        this.chat = { span: this.startChat(event, at), start: at.time, model: event.model_name, calls: 0, usage: { input_tokens: 0, output_tokens: 0, cache_input_tokens: 0, cache_creation_input_tokens: 0 } }
        return
      case 'MODEL_CALL_USAGE':
        if (this.chat) this.chat.usage = event
        return
      case 'MODEL_CALL_END':
        return this.endChat(event, at)
      case 'TOOL_CALL_START':
        if (this.chat) this.chat.calls++
        return
      case 'TOOL_RESULT_START':
        return this.startTool(event, at)
      case 'TOOL_RESULT_END':
        return this.endTool(event, at)
      case 'REQUIRE_USER_CONFIRM':
      case 'REQUIRE_EXTERNAL_EXECUTION':
        for (const call of event.tool_calls) this.waiting.add(call.id)
        if (this.content) for (const call of event.tool_calls) if (!this.content.args.get(call.id)) this.content.args.set(call.id, grown('', call.input, this.content.max))
        return
      case 'USER_CONFIRM_RESULT':
        for (const result of event.confirm_results) this.waiting.delete(result.tool_call.id)
        return
      case 'EXTERNAL_EXECUTION_RESULT':
        for (const result of event.execution_results) this.waiting.delete(result.id)
        return
      case 'CONTEXT_COMPACTED':
        this.segment?.addEvent(AGENTLOG.compactedEvent, { [GEN_AI.requestModel]: event.model_name, ...usageAttributes(event) }, at.time)
        return
      case 'TEXT_BLOCK_DELTA':
        if (this.content) this.content.text = grown(this.content.text, event.delta, this.content.max)
        return
      case 'TOOL_CALL_DELTA':
        if (this.content) this.content.args.set(event.tool_call_id, grown(this.content.args.get(event.tool_call_id) ?? '', event.delta, this.content.max))
        return
      case 'TOOL_RESULT_TEXT_DELTA':
      case 'TOOL_RESULT_DATA_DELTA':
        if (this.content) this.content.results.set(event.tool_call_id, grown(this.content.results.get(event.tool_call_id) ?? '', event.type === 'TOOL_RESULT_TEXT_DELTA' ? event.delta : `[${event.media_type}]`, this.content.max))
        return
    }
  }

  /** REPLY_END: whatever was held learns its cause, the segment ends with the reply's finish reason. */
  end(event: EventOf<'REPLY_END'>, at: At): void {
    const reason = event.finished_reason
    const unexplained: Cause = { kind: 'interrupt', stop: this.stop ?? { source: 'crash_recovery', at: this.heldAt ?? at.time } }
    const cause: Cause | null = reason === 'error' ? { kind: 'error', type: event.error?.type ?? 'unknown' } : reason === 'interrupted' ? unexplained : null
    this.release(cause ?? unexplained)
    const span = this.segment ?? this.openSegment(null, at, this.parent)
    span.setAttributes({ [AGENTLOG.seqEnd]: at.seq, [AGENTLOG.finishReason]: reason, [GEN_AI.finishReasons]: [reason] })
    if (cause?.kind === 'interrupt') {
      this.interruptEvent(span, cause.stop)
      if (cause.stop.source === 'crash_recovery') span.setAttribute(AGENTLOG.recovered, true)
      this.settings.observer?.interrupted?.(cause.stop.source, this.agent)
    }
    if (event.error) {
      span.setAttribute(GEN_AI.errorType, event.error.type)
      span.setStatus({ code: SpanStatusCode.ERROR, message: event.error.message })
    }
    if (this.content) span.setAttribute(GEN_AI.outputMessages, messages('assistant', cut(this.content.text, this.content.max), reason))
    span.end(at.time)
    this.segment = null
    this.settings.observer?.replyEnded?.(reason, this.agent)
  }

  /** The log ends inside the reply: what is open ends at the last event, marked in progress (or paused). */
  cut(last: At): void {
    this.release({ kind: 'interrupt', stop: this.stop ?? { source: 'crash_recovery', at: this.heldAt ?? last.time } })
    if (this.waitsForAnswer) return this.pause(last)
    const open = [this.chat?.span, ...[...this.tools.values()].map((t) => t.span), this.segment ?? undefined]
    for (const span of open) span?.setAttribute(AGENTLOG.inProgress, true).end(last.time)
    this.chat = null
    this.tools.clear()
    this.segment = null
  }

  /** The tool span a sub-agent's reply hangs under. */
  toolSpan(tool_call_id: string): SpanContext | null {
    return this.tools.get(tool_call_id)?.span.spanContext() ?? null
  }

  private openSegment(input: AgentEvent | null, at: At, parent: Context): Span {
    const resumed = this.paused
    const attributes: Attributes = {
      [GEN_AI.operation]: 'invoke_agent', [GEN_AI.agentName]: this.agent, [GEN_AI.conversation]: this.session_id,
      [AGENTLOG.session]: this.session_id, [AGENTLOG.reply]: this.reply_id, [AGENTLOG.seqStart]: at.seq, [AGENTLOG.segment]: this.segmentIndex++,
    }
    if (resumed) attributes[AGENTLOG.waitedMs] = at.time - resumed.at
    const link = resumed && trace.isSpanContextValid(resumed.span) ? [{ context: resumed.span, attributes: { [AGENTLOG.reply]: this.reply_id } }] : null
    if (this.content && input?.type === 'USER_MESSAGE') attributes[GEN_AI.inputMessages] = JSON.stringify([{ role: input.msg.role, parts: [{ type: 'text', content: cut(textOf(input.msg.content), this.content.max) }] }])
    const span = this.settings.tracer.startSpan(`invoke_agent ${this.agent}`, {
      kind: SpanKind.INTERNAL, startTime: at.time, attributes, ...(link ? { links: link } : {}),
    }, parent)
    this.segment = span
    this.segmentStart = at
    this.paused = null
    return span
  }

  private get segmentContext(): Context {
    const span = this.segment ?? this.openSegment(null, this.segmentStart!, this.parent)
    return trace.setSpan(this.parent, span)
  }

  private startChat(event: EventOf<'MODEL_CALL_START'>, at: At): Span {
    return this.settings.tracer.startSpan(`chat ${event.model_name}`, {
      kind: SpanKind.CLIENT, startTime: at.time,
      attributes: {
        [GEN_AI.operation]: 'chat', [GEN_AI.requestModel]: event.model_name, [GEN_AI.conversation]: this.session_id,
        ...(this.settings.providerName ? { [GEN_AI.provider]: this.settings.providerName } : {}),
        [AGENTLOG.session]: this.session_id, [AGENTLOG.reply]: this.reply_id, [AGENTLOG.seqStart]: at.seq,
      },
    }, this.segmentContext)
  }

  private endChat(event: EventOf<'MODEL_CALL_END'>, at: At): void {
    const chat = this.chat
    if (!chat) return
    this.chat = null
    chat.usage = event
    const finish = (cause: Cause | null) => {
      const reasons = cause?.kind === 'error' ? ['error'] : cause ? ['interrupted'] : chat.calls > 0 ? ['tool_calls'] : ['stop']
      chat.span.setAttributes({ ...usageAttributes(chat.usage), [GEN_AI.finishReasons]: reasons, [AGENTLOG.seqEnd]: at.seq })
      if (cause?.kind === 'interrupt') this.interruptEvent(chat.span, cause.stop)
      if (cause?.kind === 'error') {
        chat.span.setAttribute(GEN_AI.errorType, cause.type)
        chat.span.setStatus({ code: SpanStatusCode.ERROR })
      }
      chat.span.end(at.time)
      this.settings.observer?.chatEnded?.({ model: chat.model, usage: chat.usage, durationMs: at.time - chat.start, error: cause?.kind === 'error' ? cause.type : null, agent: this.agent })
    }
    if (event.finished_reason === 'completed') finish(null)
    else if (this.stop) finish({ kind: 'interrupt', stop: this.stop })
    else this.hold(finish, at)
  }

  private startTool(event: EventOf<'TOOL_RESULT_START'>, at: At): void {
    const child = childSessionOf(event, this.session_id)
    const span = this.settings.tracer.startSpan(`execute_tool ${event.tool_call_name}`, {
      kind: SpanKind.INTERNAL, startTime: at.time,
      attributes: {
        [GEN_AI.operation]: 'execute_tool', [GEN_AI.toolName]: event.tool_call_name, [GEN_AI.toolCallId]: event.tool_call_id, [GEN_AI.toolType]: 'function',
        [AGENTLOG.session]: this.session_id, [AGENTLOG.reply]: this.reply_id, [AGENTLOG.seqStart]: at.seq,
        ...(child ? { [AGENTLOG.childSession]: child } : {}),
        ...(this.content?.args.has(event.tool_call_id) ? { [GEN_AI.toolArguments]: cut(this.content.args.get(event.tool_call_id)!, this.content.max) } : {}),
      },
    }, this.segmentContext)
    this.tools.set(event.tool_call_id, { span, start: at.time, name: event.tool_call_name })
  }

  private endTool(event: EventOf<'TOOL_RESULT_END'>, at: At): void {
    const run = this.tools.get(event.tool_call_id)
    if (!run) return
    this.tools.delete(event.tool_call_id)
    this.waiting.delete(event.tool_call_id)
    const finish = (cause: Cause | null) => {
      const state = cause?.kind === 'error' ? 'error' : event.state
      run.span.setAttributes({ [AGENTLOG.resultState]: state, [AGENTLOG.seqEnd]: at.seq })
      if (this.content?.results.has(event.tool_call_id)) run.span.setAttribute(GEN_AI.toolResult, cut(this.content.results.get(event.tool_call_id)!, this.content.max))
      if (cause?.kind === 'interrupt') this.interruptEvent(run.span, cause.stop)
      if (state === 'denied') run.span.addEvent(AGENTLOG.deniedEvent, {}, at.time)
      if (state === 'error') {
        run.span.setAttribute(GEN_AI.errorType, cause?.kind === 'error' ? cause.type : 'tool_error')
        run.span.setStatus({ code: SpanStatusCode.ERROR })
      }
      run.span.end(at.time)
    }
    if (event.state !== 'interrupted') finish(null)
    else if (this.stop) finish({ kind: 'interrupt', stop: this.stop })
    else this.hold(finish, at)
  }

  /** Ends the spans held for their cause. */
  private release(cause: Cause): void {
    for (const finish of this.held) finish(cause)
    this.held = []
  }

  private hold(finish: (cause: Cause) => void, at: At): void {
    this.heldAt ??= at.time
    this.held.push(finish)
  }

  private interruptEvent(span: Span, stop: Stop): void {
    span.addEvent(AGENTLOG.interruptEvent, { [AGENTLOG.interruptSource]: stop.source }, stop.at)
  }
}

const textOf = (content: string | { type: string; text?: string }[]): string =>
  typeof content === 'string' ? content : content.map((b) => (b.type === 'text' ? b.text ?? '' : '')).join('')

/** A recorded text grown by `delta`, keeping at most one character past `max` (enough to know it must be cut): memory stays bounded however long the reply. */
const grown = (text: string, delta: string, max: number): string => (text.length > max ? text : text + delta.slice(0, max + 1 - text.length))

/** The text as an attribute holds it: at most `max` characters, and a note when cut. */
const cut = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max)}… [cut at ${max} characters]` : text)

const messages = (role: string, text: string, finish_reason: string) =>
  JSON.stringify([{ role, parts: [{ type: 'text', content: text }], finish_reason }])
