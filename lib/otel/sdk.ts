// Spans through the official SDK, for the CLI: a past session's (`agentlog trace`: traceLog into an
// in-memory exporter, then either OTLP/HTTP through the official exporter or plain JSON), and the
// live spans of every session a hub serves (`agentlog serve --otlp`: instrument(hub), batched to the
// same exporter). The SDK packages are loaded on demand (optional: @opentelemetry/sdk-trace-base,
// resources, exporter-trace-otlp-http).
import { SpanKind } from '@opentelemetry/api'
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base'
import { AgentError, messageOf } from '../core/errors.js'
import type { AgentEvent } from '../core/events.js'
import type { Hub } from '../hub/types.js'
import { INSTRUMENTATION_SCOPE, instrument } from './instrument.js'
import type { TraceOptions } from './settings.js'
import { traceLog } from './traceLog.js'

const need = async <T>(what: string, load: () => Promise<T>): Promise<T> => {
  try {
    return await load()
  } catch (error) {
    throw new AgentError('MISSING_DEPENDENCY', `Exporting spans needs the OpenTelemetry SDK: npm install @opentelemetry/api @opentelemetry/sdk-trace-base @opentelemetry/resources @opentelemetry/exporter-trace-otlp-http (${what}: ${messageOf(error)}).`)
  }
}

/** The spans of the logs (a session and its sub-agents' logs), as the SDK records them, with `service.name`. */
export const recordSpans = async (logs: readonly (readonly AgentEvent[])[], options: TraceOptions & { serviceName: string }): Promise<ReadableSpan[]> => {
  const { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } = await need('@opentelemetry/sdk-trace-base', () => import('@opentelemetry/sdk-trace-base'))
  const { resourceFromAttributes } = await need('@opentelemetry/resources', () => import('@opentelemetry/resources'))
  const exporter = new InMemorySpanExporter()
  const provider = new BasicTracerProvider({ resource: resourceFromAttributes({ 'service.name': options.serviceName }), spanProcessors: [new SimpleSpanProcessor(exporter)] })
  traceLog(logs, { ...options, tracer: provider.getTracer(INSTRUMENTATION_SCOPE) })
  await provider.forceFlush()
  const spans = exporter.getFinishedSpans()
  await provider.shutdown()
  return spans
}

/** Sends spans to an OTLP/HTTP collector (`http://host:4318`, or the full `/v1/traces` URL); rejects with EXPORT_FAILED. */
export const sendOtlp = async (spans: ReadableSpan[], endpoint: string): Promise<string> => {
  const url = otlpTracesUrl(endpoint)
  const { OTLPTraceExporter } = await need('@opentelemetry/exporter-trace-otlp-http', () => import('@opentelemetry/exporter-trace-otlp-http'))
  const exporter = new OTLPTraceExporter({ url })
  try {
    await new Promise<void>((resolve, reject) => exporter.export(spans, (result) => {
      if (result.code === 0) resolve()
      else reject(new AgentError('EXPORT_FAILED', `The collector at ${url} did not take the spans: ${messageOf(result.error ?? 'unknown error')}. Check that an OTLP/HTTP receiver listens there (port 4318 by default).`))
    }))
  } finally {
    await exporter.shutdown()
  }
  return url
}

/**
 * Sends the spans of every reply `hub` serves, as they run (sub-agents included), to an OTLP/HTTP
 * collector, batched; `stop()` stops tracing and sends what is left. A collector that is down loses
 * spans, never a reply (the exporter's errors stay in the SDK).
 */
export const exportLive = async (hub: Hub, endpoint: string, serviceName: string): Promise<{ url: string; stop(): Promise<void> }> => {
  const url = otlpTracesUrl(endpoint)
  const { BasicTracerProvider, BatchSpanProcessor } = await need('@opentelemetry/sdk-trace-base', () => import('@opentelemetry/sdk-trace-base'))
  const { resourceFromAttributes } = await need('@opentelemetry/resources', () => import('@opentelemetry/resources'))
  const { OTLPTraceExporter } = await need('@opentelemetry/exporter-trace-otlp-http', () => import('@opentelemetry/exporter-trace-otlp-http'))
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': serviceName }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url }))],
  })
  const instrumentation = instrument(hub, { tracerProvider: provider })
  return {
    url,
    async stop() {
      instrumentation.stop()
      await provider.shutdown()
    },
  }
}

/** The collector's traces URL (`/v1/traces` added to a base URL); throws INVALID_OPTION for anything but an http(s) URL without credentials. */
export const otlpTracesUrl = (endpoint: string): string => {
  let url: URL
  try {
    url = new URL(endpoint)
  } catch {
    throw new AgentError('INVALID_OPTION', `--otlp needs an http(s) URL such as http://localhost:4318; received ${JSON.stringify(endpoint)}.`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new AgentError('INVALID_OPTION', `--otlp needs an http(s) URL such as http://localhost:4318; received ${JSON.stringify(endpoint)}.`)
  if (url.username || url.password) throw new AgentError('INVALID_OPTION', '--otlp: put no credentials in the URL.')
  if (!url.pathname.endsWith('/v1/traces')) url.pathname = `${url.pathname.replace(/\/$/, '')}/v1/traces`
  return url.toString()
}

const iso = (t: [number, number]) => new Date(t[0] * 1000 + Math.floor(t[1] / 1e6)).toISOString()

/** A span as plain JSON (ids, names, ISO times, attributes, events, links, status). */
export const spanJson = (span: ReadableSpan) => ({
  traceId: span.spanContext().traceId,
  spanId: span.spanContext().spanId,
  parentSpanId: span.parentSpanContext?.spanId ?? null,
  name: span.name,
  kind: SpanKind[span.kind],
  startTime: iso(span.startTime),
  endTime: iso(span.endTime),
  attributes: span.attributes,
  events: span.events.map((e) => ({ name: e.name, time: iso(e.time), attributes: e.attributes ?? {} })),
  links: span.links.map((l) => ({ traceId: l.context.traceId, spanId: l.context.spanId, attributes: l.attributes ?? {} })),
  status: { code: span.status.code, ...(span.status.message ? { message: span.status.message } : {}) },
})
