// OpenTelemetry from the log (agentlog/otel): live spans and metrics while replies run, and the same
// spans rebuilt from the log afterwards. The in-memory exporter keeps this offline; in production,
// put the OTLP exporter (@opentelemetry/exporter-trace-otlp-http) in the span processor instead.
// expect: invoke_agent Friday
// expect:   execute_tool delete_file
// expect: live spans = rebuilt spans: true
import { z } from 'zod'
import { callTool, createAgent, defineTool, say, scriptedModel, usage } from 'agentlog'
import { instrument, traceLog } from 'agentlog/otel'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base'
import { MeterProvider } from '@opentelemetry/sdk-metrics'

const deleteFile = defineTool({
  name: 'delete_file', description: 'Deletes a file', input: z.object({ path: z.string() }), permission: 'ask',
  execute: async ({ path }) => `deleted ${path}`,
})
const model = scriptedModel([[...callTool('c1', 'delete_file', { path: '/tmp/old.txt' }), usage(120, 14)], [...say('Deleted it.'), usage(150, 5)]])
const agent = createAgent({ name: 'Friday', model, tools: [deleteFile] })

const exporter = new InMemorySpanExporter()
const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
const meterProvider = new MeterProvider()
instrument(agent, { tracerProvider, meterProvider, providerName: 'openai' })

// The caller's trace goes on in the reply's spans (the server does this with a request's traceparent header).
const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01'
await agent.reply('Delete /tmp/old.txt', { traceContext: { traceparent } }) // parks: the tool asks first
await agent.approve('c1') // a new invoke_agent span, linked to the parked one, with agentlog.waited_ms

const live = exporter.getFinishedSpans()
printTree(live)

// Years later, from the log alone: the same spans, at the log's own times.
const rebuilt = new InMemorySpanExporter()
const offline = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(rebuilt)] })
traceLog(agent.log, { tracer: offline.getTracer('agentlog'), providerName: 'openai' })
console.log('live spans = rebuilt spans:', same(live, rebuilt.getFinishedSpans()))

function printTree(spans: readonly ReadableSpan[], parentId?: string, depth = 0) {
  const ids = new Set(spans.map((s) => s.spanContext().spanId))
  const parentOf = (s: ReadableSpan) => s.parentSpanContext?.spanId ?? ''
  for (const span of spans.filter((s) => (parentId === undefined ? !ids.has(parentOf(s)) : parentOf(s) === parentId))) {
    const { 'gen_ai.usage.input_tokens': tokens, 'agentlog.waited_ms': waited } = span.attributes
    console.log(`${'  '.repeat(depth)}${span.name}${tokens !== undefined ? ` (${tokens} input tokens)` : ''}${waited !== undefined ? ` (waited ${waited} ms)` : ''}`)
    printTree(spans, span.spanContext().spanId, depth + 1)
  }
}

function same(a: readonly ReadableSpan[], b: readonly ReadableSpan[]) {
  const view = (spans: readonly ReadableSpan[]) => spans.map((s) => [s.name, s.startTime, s.endTime, s.attributes, s.events.map((e) => e.name)])
  return JSON.stringify(view(a)) === JSON.stringify(view(b))
}
