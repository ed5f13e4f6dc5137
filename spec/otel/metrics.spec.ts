// Metrics with the real SDK (sdk-metrics, in-memory reader): instrument() records the GenAI client
// histograms (token usage by type, operation duration) and counts replies by finish reason and
// interrupts by source; instrumentServer() measures request durations, open replies and open event
// streams on the real server, whose requests' traceparent the replies' spans continue.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { callTool, createHub, createServer, memoryStore, say, scriptedModel, usage } from 'agentlog'
import { listen } from 'agentlog/node'
import { instrument, instrumentServer } from 'agentlog/otel'
import { collect, makeAgent, probe, slowTool } from '../helpers/fixtures.js'
import { askingTool } from '../helpers/hitl.js'
import { memoryMetrics, memoryTracing, named, until } from './helpers.js'

const test = suite('otel/metrics')

type Point = { attributes: Record<string, unknown>; value: unknown }
const find = (points: Point[] | undefined, attributes: Record<string, unknown>) =>
  (points ?? []).filter((p) => Object.entries(attributes).every(([k, v]) => p.attributes[k] === v))
const sumOf = (points: Point[]) => points.reduce((n, p) => n + (typeof p.value === 'number' ? p.value : (p.value as { sum: number }).sum), 0)
const countOf = (points: Point[]) => points.reduce((n, p) => n + (p.value as { count: number }).count, 0)

test('token usage and duration histograms per model call; replies by finish reason; interrupts by source', async () => {
  const p = probe()
  const { agent } = makeAgent([
    [...callTool('c1', 'slow', { x: 'a' }), usage(11, 7)], [...say('done'), usage(20, 4)],
    [...callTool('c2', 'wait', { x: 'b' }), usage(5, 1)],
    [...callTool('c3', 'delete_file', { path: '/x' }), usage(2, 1)],
  ], [slowTool(p, { ms: 1 }), slowTool(p, { name: 'wait', ms: 10_000 }), askingTool(probe())])
  const otel = memoryTracing()
  const meters = memoryMetrics()
  instrument(agent, { tracerProvider: otel.provider, meterProvider: meters.provider })
  await agent.reply('first')
  const stop = new AbortController()
  const run = collect(agent.replyStream('second', { signal: stop.signal }))
  await until(async () => agent.log.some((e) => e.type === 'TOOL_RESULT_START' && e.tool_call_id === 'c2'))
  stop.abort()
  await run
  await agent.reply('third')
  await agent.interrupt()
  const m = await meters.collect()
  const tokens = m['gen_ai.client.token.usage']
  assert.is(sumOf(find(tokens, { 'gen_ai.token.type': 'input', 'gen_ai.request.model': 'scripted', 'gen_ai.operation.name': 'chat' })), 11 + 20 + 5 + 2)
  assert.is(sumOf(find(tokens, { 'gen_ai.token.type': 'output' })), 7 + 4 + 1 + 1)
  assert.is(countOf(find(m['gen_ai.client.operation.duration'], { 'gen_ai.operation.name': 'chat' })), 4)
  assert.is(sumOf(find(m['agentlog.replies'], { 'agentlog.finish_reason': 'completed' })), 1)
  assert.is(sumOf(find(m['agentlog.replies'], { 'agentlog.finish_reason': 'interrupted' })), 2)
  assert.is(sumOf(find(m['agentlog.interrupts'], { 'agentlog.interrupt.source': 'user_interrupt' })), 1)
  assert.is(sumOf(find(m['agentlog.interrupts'], { 'agentlog.interrupt.source': 'signal' })), 1)
})

test('the server: request durations, open replies and event streams back to zero, and a traceparent continued by the reply and the AG-UI run', async () => {
  const store = memoryStore()
  const hub = createHub({ store, agent: () => ({ name: 'Served', model: scriptedModel([[...say('hi there', 2), usage(1, 1)]], { onExhausted: 'repeat-last' }) }) })
  const otel = memoryTracing()
  const meters = memoryMetrics()
  instrument(hub, { tracerProvider: otel.provider })
  const server = await listen(instrumentServer(createServer({ hub }), { meterProvider: meters.provider }), { port: 0 })
  try {
    const { session_id } = await (await fetch(`${server.url}/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).json() as { session_id: string }
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'
    const reply = await fetch(`${server.url}/sessions/${session_id}/replies`, { method: 'POST', headers: { traceparent, 'content-type': 'application/json' }, body: JSON.stringify({ input: 'hello' }) })
    assert.is(reply.status, 200)
    await reply.text()
    const [span] = named(otel.spans(), 'invoke_agent Served')
    assert.is(span.spanContext().traceId, '4bf92f3577b34da6a3ce929d0e0e4736')
    assert.is(span.parentSpanContext?.spanId, '00f067aa0ba902b7')
    assert.equal((await store.read(session_id))[0].metadata.trace_context, { traceparent })

    const agui = await fetch(`${server.url}/ag-ui`, {
      method: 'POST', headers: { traceparent: '00-11111111111111111111111111111111-2222222222222222-01', 'content-type': 'application/json' },
      body: JSON.stringify({ threadId: 'thread-1', runId: 'run-1', messages: [{ id: 'u1', role: 'user', content: 'hi' }], tools: [], context: [], state: {}, forwardedProps: {} }),
    })
    await agui.text()
    const run = otel.spans().find((s) => s.attributes['agentlog.session_id'] === 'thread-1' && s.name === 'invoke_agent Served')
    assert.is(run?.parentSpanContext?.spanId, '2222222222222222')

    const events = new AbortController()
    const stream = await fetch(`${server.url}/sessions/${session_id}/events?from_seq=0`, { signal: events.signal })
    const reader = stream.body!.getReader()
    await reader.read()
    let m = await meters.collect()
    assert.is(sumOf(find(m['agentlog.server.open_event_streams'], {})), 1, 'one event stream open')
    events.abort()
    await reader.read().catch(() => undefined)
    await until(async () => sumOf(find((await meters.collect())['agentlog.server.open_event_streams'], {})) === 0)
    m = await meters.collect()
    assert.is(sumOf(find(m['agentlog.server.open_replies'], {})), 0, 'the reply streams ended')
    assert.is(countOf(find(m['http.server.request.duration'], { 'http.route': '/sessions/:id/replies', 'http.request.method': 'POST', 'http.response.status_code': 200 })), 1)
    assert.is(countOf(find(m['http.server.request.duration'], { 'http.route': '/ag-ui' })), 1)
    assert.is(countOf(find(m['http.server.request.duration'], { 'http.route': '/sessions' })), 1)
  } finally {
    await server.close()
    await hub.close()
  }
})

test.run()
