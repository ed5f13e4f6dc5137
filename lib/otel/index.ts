// agentlog/otel: OpenTelemetry traces and metrics from the log, live or years later. `traceLog`
// emits a stored session's spans (GenAI semantic conventions) at the log's own times; `instrument`
// emits the same spans as an agent's or a hub's replies run, plus metrics; `instrumentServer` adds
// the server's metrics. @opentelemetry/api is an optional peer dependency, needed only here.
export { traceLog, type TraceLogOptions } from './traceLog.js'
export { currentTraceContext, parseTraceparent, formatTraceContext } from './context.js'
export type { TraceContext } from '../core/traceparent.js'
export { AGENTLOG, GEN_AI, type InterruptSource } from './attributes.js'
export { DEFAULT_MAX_CONTENT_LENGTH, type TraceOptions } from './settings.js'
export { instrument, INSTRUMENTATION_SCOPE, type InstrumentOptions, type Instrumentation } from './instrument.js'
export { instrumentServer, type ServerInstrumentOptions } from './server.js'
