// Cost of agentlog/otel's live instrumentation per streamed delta: the same reply of DELTAS text
// deltas with instrument() off and on (the SDK's in-memory span exporter and a metric reader),
// interleaved, best of RUNS; wall / CPU time. Spans are per reply, model call and tool call, never
// per delta, so the ratio should stay near 1 (goal ≤ 1.3). With captureContent the reply's text is
// kept for its output attribute (one string append per delta).
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { InMemoryMetricExporter, AggregationTemporality, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics'
import { createAgent, UserMsg } from '../lib/index.js'
import { instrument } from '../lib/otel/index.js'
import { cpuNow, fastModel, line, now, ratio, textDeltas, us, type Figure } from './helpers.js'

const DELTAS = 100_000
const RUNS = 8
const deltas = textDeltas(DELTAS)

const run = async (mode: 'off' | 'on' | 'content'): Promise<Figure & { spans: number }> => {
  const agent = createAgent({ name: 'bench', model: fastModel([deltas]) })
  const exporter = new InMemorySpanExporter()
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
  const meterProvider = new MeterProvider({ readers: [new PeriodicExportingMetricReader({ exporter: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE), exportIntervalMillis: 3_600_000 })] })
  const instrumentation = mode === 'off' ? null : instrument(agent, { tracerProvider, meterProvider, captureContent: mode === 'content' })
  const wall = now()
  const cpu = cpuNow()
  let seen = 0
  for await (const event of agent.replyStream(UserMsg({ content: 'stream' }))) if (event.type === 'TEXT_BLOCK_DELTA') seen++
  const figure = { wall: ((now() - wall) / DELTAS) * 1000, cpu: ((cpuNow() - cpu) / DELTAS) * 1000, spans: exporter.getFinishedSpans().length }
  instrumentation?.stop()
  await meterProvider.shutdown()
  if (seen !== DELTAS) throw new Error(`expected ${DELTAS} deltas, saw ${seen}`)
  if (mode !== 'off' && figure.spans !== 2) throw new Error(`expected 2 spans (invoke_agent, chat), got ${figure.spans}`)
  return figure
}


export const otelCost = async () => {
  console.log(`\nOpenTelemetry (agentlog/otel instrument(), in-memory exporter): ${DELTAS.toLocaleString()} text deltas in one reply (best of ${RUNS}, interleaved); wall / CPU time`)
  const modes = ['off', 'on', 'content'] as const
  const best = Object.fromEntries(modes.map((m) => [m, { wall: Infinity, cpu: Infinity }])) as Record<(typeof modes)[number], Figure>
  for (const mode of modes) await run(mode)
  for (let i = 0; i < RUNS; i++) {
    for (const mode of modes) {
      const f = await run(mode)
      best[mode] = { wall: Math.min(best[mode].wall, f.wall), cpu: Math.min(best[mode].cpu, f.cpu) }
    }
  }
  line('instrumentation off, per delta', us(best.off))
  line('instrumentation on, per delta', us(best.on))
  line('on / off', ratio(best.on, best.off), '≤ 1.3')
  line('on with captureContent, per delta', us(best.content))
  line('captureContent / off', ratio(best.content, best.off))
}
