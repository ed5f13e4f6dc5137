// OpenTelemetry specs' helpers: the real SDK with its in-memory exporter and metric reader, and
// spans as comparable values (ids replaced by positions, times in ms) for tree and equality checks.
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base'
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics'
import type { HrTime } from '@opentelemetry/api'
import type { Clock } from 'agentlog'

export const memoryTracing = () => {
  const exporter = new InMemorySpanExporter()
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
  return { exporter, provider, tracer: provider.getTracer('agentlog-spec'), spans: () => exporter.getFinishedSpans() }
}

export const memoryMetrics = () => {
  const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE)
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 })
  const provider = new MeterProvider({ readers: [reader] })
  /** Every metric point collected now, by metric name. */
  const collect = async () => {
    const { resourceMetrics } = await reader.collect()
    const byName: Record<string, { attributes: Record<string, unknown>; value: unknown }[]> = {}
    for (const scope of resourceMetrics.scopeMetrics) for (const metric of scope.metrics)
      byName[metric.descriptor.name] = metric.dataPoints.map((p) => ({ attributes: p.attributes, value: p.value }))
    return byName
  }
  return { provider, collect }
}

export const ms = (t: HrTime): number => t[0] * 1000 + Math.round(t[1] / 1e6)

export interface SpanShape {
  name: string
  /** The position of the parent span in the list, the remote parent's span id, or null for a root. */
  parent: number | string | null
  start: number
  end: number
  status: number
  attributes: Record<string, unknown>
  events: { name: string; time: number; attributes: Record<string, unknown> }[]
  links: (number | string)[]
}

/** The spans as values: a span's parent and links name other spans by position (stable across runs). */
export const shapes = (spans: readonly ReadableSpan[]): SpanShape[] => {
  const index = new Map(spans.map((s, i) => [s.spanContext().spanId, i]))
  const ref = (id: string | undefined) => (id === undefined ? null : index.get(id) ?? id)
  return spans.map((s) => ({
    name: s.name,
    parent: ref(s.parentSpanContext?.spanId),
    start: ms(s.startTime),
    end: ms(s.endTime),
    status: s.status.code,
    attributes: { ...s.attributes },
    events: s.events.map((e) => ({ name: e.name, time: ms(e.time), attributes: { ...e.attributes } })),
    links: s.links.map((l) => ref(l.context.spanId)!),
  }))
}

/** The tree as indented names (children in start order), for readable assertions. */
export const outline = (spans: readonly ReadableSpan[]): string[] => {
  const all = shapes(spans)
  const lines: string[] = []
  const walk = (parent: number | null, depth: number) => {
    const children = all.map((s, i) => ({ s, i })).filter(({ s }) => (parent === null ? typeof s.parent !== 'number' : s.parent === parent))
    children.sort((a, b) => a.s.start - b.s.start || (a.s.attributes['agentlog.seq.start'] as number) - (b.s.attributes['agentlog.seq.start'] as number))
    for (const { s, i } of children) {
      lines.push(`${'  '.repeat(depth)}${s.name}`)
      walk(i, depth + 1)
    }
  }
  walk(null, 0)
  return lines
}

export const named = (spans: readonly ReadableSpan[], name: string): ReadableSpan[] => spans.filter((s) => s.name === name)

/** A clock whose time can jump (an answer an hour later); 1 ms per event otherwise. */
export const steppedClock = (start = Date.UTC(2026, 0, 1)) => {
  let n = 0
  let t = start
  const clock: Clock & { advance(ms: number): void } = {
    id: () => `e-${++n}`,
    now: () => new Date(t++).toISOString(),
    advance: (by) => { t += by },
  }
  return clock
}


/** Waits until `check` holds, polling (a loaded machine may be slow); fails after 20 s instead of hanging. */
export const until = async (check: () => boolean | Promise<boolean>, what = 'the condition') => {
  const deadline = Date.now() + 20_000
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 2))
  }
}

/** shapes() in an order that does not depend on when each span ended (live spans of a tree end deepest first, rebuilt ones log by log). */
export const sortedShapes = (spans: readonly ReadableSpan[]): SpanShape[] => {
  const key = (s: ReadableSpan) => `${s.attributes['agentlog.session_id']}\u0000${String(s.attributes['agentlog.seq.start']).padStart(8, '0')}\u0000${s.name}`
  return shapes([...spans].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0)))
}
