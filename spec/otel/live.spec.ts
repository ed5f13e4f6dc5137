// instrument(): spans emitted while replies run equal the spans traceLog rebuilds from the log
// afterwards (same tree, names, attributes, events, links and times), for an agent and for a hub;
// a reply option's trace context is recorded on the input event and continued by both.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { AgentError, callTool, createHub, memoryLog, memoryStore, replay, say, scriptedModel, usage, type Agent, type AgentEvent, type LogStore } from 'agentlog'
import { instrument, traceLog } from 'agentlog/otel'
import { collect, makeAgent, probe, slowTool } from '../helpers/fixtures.js'
import { askingTool, externalTool } from '../helpers/hitl.js'
import { memoryTracing, named, outline, shapes, steppedClock, until } from './helpers.js'

const test = suite('otel/instrument')

const rebuilt = (log: readonly AgentEvent[]) => {
  const otel = memoryTracing()
  traceLog(log, { tracer: otel.tracer })
  return otel.spans()
}

/** Runs `scenario` on an instrumented agent; its live spans must equal the spans rebuilt from its log. */
const liveEqualsRebuilt = async (name: string, make: () => Agent, scenario: (agent: Agent) => Promise<unknown>) => {
  const agent = make()
  const otel = memoryTracing()
  const instrumentation = instrument(agent, { tracerProvider: otel.provider })
  await scenario(agent)
  await Promise.resolve()
  instrumentation.stop()
  const live = otel.spans()
  assert.ok(live.length > 0, `${name}: spans were emitted`)
  assert.equal(shapes(live), shapes(rebuilt(agent.log)), `${name}: live spans equal the spans rebuilt from the log`)
  return { agent, live }
}

test('live spans equal rebuilt spans: text, parallel tools, a signal stop, a pause answered later, USER_INTERRUPT, a denial, a model failure', async () => {
  await liveEqualsRebuilt('text', () => makeAgent([[...say('Hello.', 4), usage(3, 2)]], []).agent, (a) => a.reply('hi'))
  const { live } = await liveEqualsRebuilt('parallel tools', () => makeAgent([
    [...callTool('c1', 'slow', { x: 'a' }), ...callTool('c2', 'slow', { x: 'b' }), usage(3, 2)], [...say('ok'), usage(1, 1)],
  ], [slowTool(probe(), { ms: 3, safe: true })]).agent, (a) => a.reply('go'))
  assert.equal(outline(live), ['invoke_agent Friday', '  chat scripted', '  execute_tool slow', '  execute_tool slow', '  chat scripted'])

  const p = probe()
  await liveEqualsRebuilt('signal', () => makeAgent([[...callTool('c1', 'slow', { x: 'a' }), usage(3, 1)]], [slowTool(p, { ms: 10_000 })]).agent, async (a) => {
    const stop = new AbortController()
    const run = collect(a.replyStream('go', { signal: stop.signal }))
    await until(() => p.started.length > 0)
    stop.abort()
    await run
  })

  const clock = steppedClock()
  const paused = await liveEqualsRebuilt('pause', () => makeAgent([[...callTool('c1', 'delete_file', { path: '/x' }), usage(5, 2)], [...say('Deleted.'), usage(8, 1)]], [askingTool(probe())], { clock }).agent, async (a) => {
    await a.reply('delete it')
    clock.advance(86_400_000)
    await a.approve('c1')
  })
  const [, second] = named(paused.live, 'invoke_agent Friday')
  assert.ok((second.attributes['agentlog.waited_ms'] as number) >= 86_400_000)
  assert.is(second.links.length, 1)

  await liveEqualsRebuilt('user interrupt', () => makeAgent([[...callTool('c1', 'delete_file', { path: '/x' }), usage(5, 2)]], [askingTool(probe())]).agent, async (a) => {
    await a.reply('delete it')
    await a.interrupt()
  })
  await liveEqualsRebuilt('external', () => makeAgent([[...callTool('c1', 'browser', { url: 'u' }), usage(5, 2)], [...say('seen'), usage(1, 1)]], [externalTool()]).agent, async (a) => {
    await a.reply('look')
    await a.submitResult('c1', 'page text')
  })
  await liveEqualsRebuilt('denial', () => makeAgent([[...callTool('c1', 'delete_file', { path: '/x' }), usage(5, 2)], [...say('ok'), usage(1, 1)]], [askingTool(probe())]).agent, async (a) => {
    await a.reply('delete it')
    await a.deny('c1', 'no')
  })
  await liveEqualsRebuilt('model failure', () => makeAgent([[...say('x'), { type: 'fail', error: new Error('503') }]], []).agent, (a) => a.reply('go').catch(() => undefined))
})

test('a restored agent emits the spans of the reply a crash cut, closed with source crash_recovery, as traceLog does', async () => {
  const p = probe()
  const { agent } = makeAgent([[...callTool('c1', 'slow', { x: 'a' }), usage(3, 1)]], [slowTool(p, { ms: 10_000 })])
  void collect(agent.replyStream('go'))
  await until(() => p.started.length > 0)
  const cut = JSON.parse(JSON.stringify(agent.log)) as AgentEvent[]
  await agent.close()
  const { agent: restored } = makeAgent([[...say('again'), usage(1, 1)]], [], { log: memoryLog(cut), clock: steppedClock(Date.UTC(2026, 0, 2)) })
  const otel = memoryTracing()
  instrument(restored, { tracerProvider: otel.provider })
  assert.equal(shapes(otel.spans()), shapes(rebuilt(restored.log)))
  assert.equal(named(otel.spans(), 'execute_tool slow')[0].events.map((e) => e.attributes?.['agentlog.interrupt.source']), ['crash_recovery'])
  await restored.reply('and now?')
  assert.equal(shapes(otel.spans()), shapes(rebuilt(restored.log)), 'the next reply is traced as usual')
})

test('an agent instrumented while parked: the answer opens a segment with the waiting time, and no earlier span is emitted again', async () => {
  const clock = steppedClock()
  const { agent } = makeAgent([[...callTool('c1', 'delete_file', { path: '/x' }), usage(5, 2)], [...say('Deleted.'), usage(8, 1)]], [askingTool(probe())], { clock })
  await agent.reply('delete it')
  const log = JSON.parse(JSON.stringify(agent.log)) as AgentEvent[]
  await agent.close()
  clock.advance(60_000)
  const { agent: restored } = makeAgent([[...say('Deleted.'), usage(8, 1)]], [askingTool(probe())], { log: memoryLog(log), clock })
  const otel = memoryTracing()
  instrument(restored, { tracerProvider: otel.provider })
  assert.is(otel.spans().length, 0, 'nothing is emitted on attach')
  await restored.approve('c1')
  assert.equal(outline(otel.spans()), ['invoke_agent Friday', '  execute_tool delete_file', '  chat scripted'])
  const [segment] = named(otel.spans(), 'invoke_agent Friday')
  assert.ok((segment.attributes['agentlog.waited_ms'] as number) >= 60_000)
  assert.is(segment.attributes['agentlog.reply.segment'], 1)
})

/** A log opened from a snapshot taken at its last event: the events before it are not loaded (as postgresStore does). */
const fromSnapshot = (events: AgentEvent[]): LogStore => {
  const log = memoryLog(events)
  const base = events.length
  const state = replay(events)
  return {
    ...log,
    get events(): AgentEvent[] { throw new AgentError('LOG_UNAVAILABLE', 'not loaded') },
    read: ({ fromSeq = 0 } = {}) => {
      if (fromSeq < base) throw new AgentError('LOG_UNAVAILABLE', 'not loaded')
      return log.read({ fromSeq })
    },
    snapshot: () => ({ seq: base, state }),
  }
}

test('a parked session opened from its snapshot (its start not loaded): the answer is traced in a new segment', async () => {
  const { agent } = makeAgent([[...callTool('c1', 'delete_file', { path: '/x' }), usage(5, 2)]], [askingTool(probe())])
  await agent.reply('delete it')
  const events = JSON.parse(JSON.stringify(agent.log)) as AgentEvent[]
  await agent.close()
  const { agent: reopened } = makeAgent([[...say('Deleted.'), usage(8, 1)]], [askingTool(probe())], { log: fromSnapshot(events), clock: steppedClock(Date.UTC(2026, 0, 3)) })
  const otel = memoryTracing()
  instrument(reopened, { tracerProvider: otel.provider })
  await reopened.approve('c1')
  assert.equal(outline(otel.spans()), ['invoke_agent Friday', '  execute_tool delete_file', '  chat scripted'])
  assert.equal(named(otel.spans(), 'invoke_agent Friday')[0].attributes['gen_ai.response.finish_reasons'], ['completed'])
})

test('the traceContext reply option is recorded on the input event and both live and rebuilt spans continue it', async () => {
  const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01'
  const { agent } = makeAgent([[...say('Hi.'), usage(1, 1)], [...say('Hi again.'), usage(1, 1)]], [])
  const otel = memoryTracing()
  instrument(agent, { tracerProvider: otel.provider })
  await agent.reply('hello', { traceContext: { traceparent, tracestate: 'vendor=x' } })
  assert.equal(agent.log[0].metadata.trace_context, { traceparent, tracestate: 'vendor=x' })
  const [reply] = named(otel.spans(), 'invoke_agent Friday')
  assert.is(reply.spanContext().traceId, '0af7651916cd43dd8448eb211c80319c')
  assert.is(reply.parentSpanContext?.spanId, 'b7ad6b7169203331')
  assert.equal(shapes(otel.spans()), shapes(rebuilt(agent.log)))
  assert.throws(() => agent.dispatch('again', { traceContext: { traceparent: '00-bad' } }), /traceContext must be/)
})

test('instrument(hub): every session the hub opens is traced live, equal to each session\'s log rebuilt', async () => {
  const store = memoryStore()
  const hub = createHub({ store, agent: () => ({ name: 'Hubby', model: scriptedModel([[...say('one'), usage(1, 1)]], { onExhausted: 'repeat-last' }) }) })
  const otel = memoryTracing()
  const instrumentation = instrument(hub, { tracerProvider: otel.provider })
  const a = await hub.create()
  const b = await hub.create()
  await hub.session(a.session_id).reply('hi')
  await hub.session(b.session_id).reply('hello')
  await hub.session(a.session_id).reply('again')
  instrumentation.stop()
  const live = otel.spans()
  for (const { session_id } of [a, b]) {
    const own = live.filter((s) => s.attributes['agentlog.session_id'] === session_id)
    assert.equal(shapes(own), shapes(rebuilt(await store.read(session_id))), `session ${session_id}`)
  }
  assert.is(named(live, 'invoke_agent Hubby').length, 3)
  await hub.close()
})

test('a tracer that throws never reaches the agent: the reply ends as usual', async () => {
  const { agent } = makeAgent([[...callTool('c1', 'slow', { x: 'a' }), usage(1, 1)], [...say('fine'), usage(1, 1)]], [slowTool(probe(), { ms: 1 })])
  const broken = { getTracer: () => ({ startSpan: () => { throw new Error('exporter down') } }) }
  instrument(agent, { tracerProvider: broken as never })
  const reply = await agent.reply('hi')
  await new Promise((r) => setTimeout(r, 20))
  assert.is(reply.text, 'fine')
  assert.is(agent.state.status, 'idle')
})

test('attach() traces another agent with the same providers', async () => {
  const otel = memoryTracing()
  const { agent: first } = makeAgent([[...say('one'), usage(1, 1)]], [])
  const { agent: second } = makeAgent([[...say('two'), usage(1, 1)]], [], { name: 'Second' })
  const instrumentation = instrument(first, { tracerProvider: otel.provider })
  instrumentation.attach(second)
  await first.reply('a')
  await second.reply('b')
  assert.equal(otel.spans().map((s) => s.name).sort(), ['chat scripted', 'chat scripted', 'invoke_agent Friday', 'invoke_agent Second'])
  instrumentation.stop()
  await second.reply('c').catch(() => undefined)
  assert.is(otel.spans().length, 4, 'nothing after stop()')
})

test('instrument refuses what is neither an agent nor a hub', () => {
  assert.throws(() => instrument({} as never), /Agent \(createAgent\) or a Hub/)
  const { agent } = makeAgent([], [])
  assert.throws(() => instrument(agent, { tracerProvider: {} as never }), /tracerProvider must be an OpenTelemetry TracerProvider/)
})

test.run()
