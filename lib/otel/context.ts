// Trace contexts between the log and OpenTelemetry: the context an input event's recorded
// `metadata.trace_context` continues, and the active span's context for the `traceContext` reply option.
import { context, ROOT_CONTEXT, trace, createTraceState, type Context, type SpanContext } from '@opentelemetry/api'
import type { AgentEvent } from '../core/events.js'
import { parseTraceparentParts, type TraceContext } from '../core/traceparent.js'

/** The remote span context a `traceparent` names, or null when it is not a valid version-00 value. */
export const parseTraceparent = (traceparent: string, tracestate?: string): SpanContext | null => {
  const parts = parseTraceparentParts(traceparent.trim())
  if (!parts) return null
  return {
    traceId: parts.traceId, spanId: parts.spanId, traceFlags: parts.flags & 1, isRemote: true,
    ...(tracestate ? { traceState: createTraceState(tracestate) } : {}),
  }
}

/** The `traceparent` (and `tracestate`) of a span context. */
export const formatTraceContext = (span: SpanContext): TraceContext => {
  const state = span.traceState?.serialize()
  return { traceparent: `00-${span.traceId}-${span.spanId}-0${span.traceFlags & 1}`, ...(state ? { tracestate: state } : {}) }
}

/**
 * The active span's trace context, or undefined when no span is active:
 * `agent.reply(text, { traceContext: currentTraceContext() })` continues the caller's trace.
 */
export const currentTraceContext = (): TraceContext | undefined => {
  const span = trace.getSpan(context.active())?.spanContext()
  return span && trace.isSpanContextValid(span) ? formatTraceContext(span) : undefined
}

/** The context an input event's recorded trace context continues, or null when it records none (or an invalid one). */
export const recordedContext = (event: AgentEvent): Context | null => {
  const recorded = event.metadata.trace_context as { traceparent?: unknown; tracestate?: unknown } | undefined
  if (typeof recorded?.traceparent !== 'string') return null
  const span = parseTraceparent(recorded.traceparent, typeof recorded.tracestate === 'string' ? recorded.tracestate : undefined)
  return span ? trace.setSpanContext(ROOT_CONTEXT, span) : null
}
