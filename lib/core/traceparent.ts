// The W3C `traceparent` as data, with no OpenTelemetry import: the core records a reply's
// `traceContext` option on its input event (`metadata.trace_context`) and the server reads the
// request headers through these helpers, so neither depends on @opentelemetry/api.
export interface TraceContext {
  /** `00-<32 hex trace id>-<16 hex parent span id>-<2 hex flags>` */
  traceparent: string
  tracestate?: string
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/
const ZEROS = /^0+$/

/** The trace id, parent span id and flags of a valid version-00 `traceparent`, or null. */
export const parseTraceparentParts = (traceparent: string): { traceId: string; spanId: string; flags: number } | null => {
  const match = TRACEPARENT.exec(traceparent)
  if (!match || ZEROS.test(match[1]) || ZEROS.test(match[2])) return null
  return { traceId: match[1], spanId: match[2], flags: parseInt(match[3], 16) }
}

/** Why `value` is not a trace context, or null when it is one. */
export const traceContextProblem = (value: unknown): string | null => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'it is not an object { traceparent, tracestate? }'
  const { traceparent, tracestate } = value as Record<string, unknown>
  if (typeof traceparent !== 'string' || !parseTraceparentParts(traceparent)) return `traceparent ${JSON.stringify(traceparent)} is not a W3C traceparent (00-<32 hex>-<16 hex>-<2 hex>, ids not all zeros)`
  if (tracestate !== undefined && typeof tracestate !== 'string') return 'tracestate must be a string'
  return null
}

/** The trace context of a request's `traceparent` / `tracestate` headers; undefined when absent or invalid (ignored, as W3C says). */
export const requestTraceContext = (headers: Headers): TraceContext | undefined => {
  const traceparent = headers.get('traceparent')?.trim()
  if (!traceparent || !parseTraceparentParts(traceparent)) return undefined
  const tracestate = headers.get('tracestate')
  return { traceparent, ...(tracestate ? { tracestate } : {}) }
}

/** An input event's metadata with the reply's trace context recorded as `trace_context`. */
export const withTraceContext = (metadata: Record<string, unknown> | undefined, traceContext: TraceContext | undefined): Record<string, unknown> | undefined =>
  traceContext ? { ...metadata, trace_context: { ...traceContext } } : metadata
