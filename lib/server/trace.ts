// The trace context a request carries (W3C `traceparent` / `tracestate` headers), passed to the
// reply it starts or resumes as the `traceContext` option: the input event records it, so the
// reply's spans (agentlog/otel) continue the caller's trace, live or rebuilt from the log later.
import { requestTraceContext } from '../core/traceparent.js'
import type { ReplyOptions } from '../agent/replyOptions.js'

export const traceOptions = (request: Request): Pick<ReplyOptions, 'traceContext'> => {
  const traceContext = requestTraceContext(request.headers)
  return traceContext ? { traceContext } : {}
}
