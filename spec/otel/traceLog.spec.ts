// traceLog: a session's spans rebuilt from its log with the real SDK (in-memory exporter): the
// tree, names, GenAI attributes, links and the log's own times, for text, tools, parallel tools,
// every kind of stop, a pause answered an hour later, a model failure and a crash closed on restore.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { SpanStatusCode } from '@opentelemetry/api'
import { callTool, memoryLog, say, usage, type AgentEvent } from 'agentlog'
import { traceLog } from 'agentlog/otel'
import { collect, makeAgent, probe, slowTool } from '../helpers/fixtures.js'
import { askingTool } from '../helpers/hitl.js'
import { memoryTracing, ms, named, outline, steppedClock, until } from './helpers.js'

const test = suite('otel/traceLog')

const at = (log: readonly AgentEvent[], type: string, nth = 0) => Date.parse(log.filter((e) => e.type === type)[nth].created_at)
const seqOf = (log: readonly AgentEvent[], type: string, nth = 0) => log.filter((e) => e.type === type)[nth].metadata.seq

test('a text reply is one invoke_agent span with a chat span, at the log\'s times, with usage and finish reason', async () => {
  const { agent } = makeAgent([[...say('Hello there.', 3), { type: 'usage', input_tokens: 12, output_tokens: 5, cache_input_tokens: 4, cache_creation_input_tokens: 2 }]], [])
  await agent.reply('hi')
  const otel = memoryTracing()
  traceLog(agent.log, { tracer: otel.tracer })
  const spans = otel.spans()
  assert.equal(outline(spans), ['invoke_agent Friday', '  chat scripted'])
  const [chat] = named(spans, 'chat scripted')
  const [reply] = named(spans, 'invoke_agent Friday')
  assert.is(chat.parentSpanContext?.spanId, reply.spanContext().spanId)
  assert.is(chat.spanContext().traceId, reply.spanContext().traceId)
  assert.equal(chat.attributes, {
    'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'scripted', 'gen_ai.conversation.id': agent.session_id,
    'agentlog.session_id': agent.session_id, 'agentlog.reply_id': agent.log[1].type === 'REPLY_START' ? agent.log[1].reply_id : '',
    'agentlog.seq.start': seqOf(agent.log, 'MODEL_CALL_START'), 'agentlog.seq.end': seqOf(agent.log, 'MODEL_CALL_END'),
    'gen_ai.usage.input_tokens': 12, 'gen_ai.usage.output_tokens': 5,
    'gen_ai.usage.cache_read.input_tokens': 4, 'gen_ai.usage.cache_creation.input_tokens': 2,
    'gen_ai.response.finish_reasons': ['stop'],
  })
  assert.is(ms(chat.startTime), at(agent.log, 'MODEL_CALL_START'))
  assert.is(ms(chat.endTime), at(agent.log, 'MODEL_CALL_END'))
  assert.is(ms(reply.startTime), at(agent.log, 'USER_MESSAGE'), 'the reply span starts at the message that asked for it')
  assert.is(ms(reply.endTime), at(agent.log, 'REPLY_END'))
  assert.is(reply.attributes['gen_ai.operation.name'], 'invoke_agent')
  assert.is(reply.attributes['gen_ai.agent.name'], 'Friday')
  assert.is(reply.attributes['agentlog.seq.start'], 1)
  assert.is(reply.attributes['agentlog.seq.end'], agent.log.length)
  assert.equal(reply.attributes['gen_ai.response.finish_reasons'], ['completed'])
  assert.is(reply.parentSpanContext, undefined, 'a reply with no recorded trace context is a root')
  assert.not.ok(JSON.stringify(spans.map((s) => s.attributes)).includes('Hello'), 'no message content unless asked')
})

test('message contents are recorded only with captureContent', async () => {
  const { agent } = makeAgent([[...callTool('c1', 'slow', { x: 'secret-arg' }), usage(1, 1)], [...say('Done: fine.'), usage(1, 1)]], [slowTool(probe(), { ms: 1 })])
  await agent.reply('please hi')
  const otel = memoryTracing()
  traceLog(agent.log, { tracer: otel.tracer, captureContent: true })
  const [reply] = named(otel.spans(), 'invoke_agent Friday')
  assert.ok(String(reply.attributes['gen_ai.input.messages']).includes('please hi'))
  assert.ok(String(reply.attributes['gen_ai.output.messages']).includes('Done: fine.'))
  const [tool] = named(otel.spans(), 'execute_tool slow')
  assert.equal(JSON.parse(String(tool.attributes['gen_ai.tool.call.arguments'])), { x: 'secret-arg' })
  assert.is(tool.attributes['gen_ai.tool.call.result'], 'slow:secret-arg')
})

test('parallel tool calls are sibling execute_tool spans under the reply, overlapping in time', async () => {
  const tools = [slowTool(probe(), { ms: 5, safe: true })]
  const { agent } = makeAgent([
    [...say('Two things.'), ...callTool('call-1', 'slow', { x: 'a' }), ...callTool('call-2', 'slow', { x: 'b' }), usage(11, 7)],
    [...say('Both done.'), usage(20, 4)],
  ], tools)
  await agent.reply('go')
  const otel = memoryTracing()
  traceLog(agent.log, { tracer: otel.tracer })
  const spans = otel.spans()
  assert.equal(outline(spans), ['invoke_agent Friday', '  chat scripted', '  execute_tool slow', '  execute_tool slow', '  chat scripted'])
  const [first] = named(spans, 'chat scripted')
  assert.equal(first.attributes['gen_ai.response.finish_reasons'], ['tool_calls'])
  const tools$ = named(spans, 'execute_tool slow')
  assert.equal(tools$.map((s) => s.attributes['gen_ai.tool.call.id']).sort(), ['call-1', 'call-2'])
  for (const span of tools$) {
    assert.is(span.attributes['gen_ai.tool.name'], 'slow')
    assert.is(span.attributes['agentlog.tool.result_state'], 'success')
    const id = span.attributes['gen_ai.tool.call.id']
    const start = agent.log.find((e) => e.type === 'TOOL_RESULT_START' && e.tool_call_id === id)!
    const end = agent.log.find((e) => e.type === 'TOOL_RESULT_END' && e.tool_call_id === id)!
    assert.is(ms(span.startTime), Date.parse(start.created_at))
    assert.is(ms(span.endTime), Date.parse(end.created_at))
  }
  assert.ok(ms(tools$[0].startTime) < ms(tools$[1].endTime) && ms(tools$[1].startTime) < ms(tools$[0].endTime), 'the two runs overlap')
})

test('a reply stopped by its signal during a tool ends interrupted, with the Stop (source signal) at INTERRUPT_REQUESTED', async () => {
  const p = probe()
  const { agent } = makeAgent([[...callTool('c1', 'slow', { x: 'a' }), usage(3, 1)]], [slowTool(p, { ms: 10_000 })])
  const stop = new AbortController()
  const run = collect(agent.replyStream('go', { signal: stop.signal }))
  await until(() => p.started.length > 0, 'the tool to start')
  stop.abort()
  await run
  const otel = memoryTracing()
  traceLog(agent.log, { tracer: otel.tracer })
  const [tool] = named(otel.spans(), 'execute_tool slow')
  const [reply] = named(otel.spans(), 'invoke_agent Friday')
  const stopAt = at(agent.log, 'INTERRUPT_REQUESTED')
  assert.is(tool.attributes['agentlog.tool.result_state'], 'interrupted')
  assert.equal(tool.events.map((e) => [e.name, e.attributes?.['agentlog.interrupt.source'], ms(e.time)]), [['agentlog.interrupt', 'signal', stopAt]])
  assert.equal(reply.attributes['gen_ai.response.finish_reasons'], ['interrupted'])
  assert.equal(reply.events.map((e) => [e.name, e.attributes?.['agentlog.interrupt.source'], ms(e.time)]), [['agentlog.interrupt', 'signal', stopAt]])
  assert.is(reply.status.code, SpanStatusCode.UNSET, 'an interrupt is not an error')
})

test('a model call stopped mid-stream ends its chat span with finish reason interrupted and the usage known so far', async () => {
  const { agent } = makeAgent([[...say('Long answer ', 1), { type: 'usage', input_tokens: 9, output_tokens: 2 }, { type: 'delay', ms: 10_000 }, ...say('never')]], [])
  const stop = new AbortController()
  const run = collect(agent.replyStream('go', { signal: stop.signal }))
  await until(() => agent.log.some((e) => e.type === 'TEXT_BLOCK_DELTA'), 'a delta')
  stop.abort()
  await run
  const otel = memoryTracing()
  traceLog(agent.log, { tracer: otel.tracer })
  const [chat] = named(otel.spans(), 'chat scripted')
  assert.equal(chat.attributes['gen_ai.response.finish_reasons'], ['interrupted'])
  assert.is(chat.events[0].attributes?.['agentlog.interrupt.source'], 'signal')
})

test('a pause answered an hour later: the first span ends at the pause, a new span linked to it carries the wait', async () => {
  const clock = steppedClock()
  const p = probe()
  const { agent } = makeAgent([[...callTool('c1', 'delete_file', { path: '/tmp/x' }), usage(5, 2)], [...say('Deleted.'), usage(8, 1)]], [askingTool(p)], { clock })
  const paused = await agent.reply('delete it')
  assert.is(paused.waiting_for.length, 1)
  const pauseAt = Date.parse(agent.log[agent.log.length - 1].created_at)
  clock.advance(3_600_000)
  await agent.approve('c1')
  const otel = memoryTracing()
  traceLog(agent.log, { tracer: otel.tracer })
  const spans = otel.spans()
  assert.equal(outline(spans), ['invoke_agent Friday', '  chat scripted', 'invoke_agent Friday', '  execute_tool delete_file', '  chat scripted'])
  const [first, second] = named(spans, 'invoke_agent Friday').sort((a, b) => ms(a.startTime) - ms(b.startTime))
  assert.is(ms(first.endTime), pauseAt, 'the first segment ends at the pause')
  assert.is(first.attributes['agentlog.paused'], true)
  assert.equal(first.attributes['agentlog.waiting_for'], ['c1'])
  assert.is(ms(second.startTime), at(agent.log, 'USER_CONFIRM_RESULT'))
  assert.is(second.links.length, 1)
  assert.is(second.links[0].context.spanId, first.spanContext().spanId)
  assert.is(second.attributes['agentlog.waited_ms'], at(agent.log, 'USER_CONFIRM_RESULT') - pauseAt)
  assert.ok((second.attributes['agentlog.waited_ms'] as number) >= 3_600_000)
  assert.is(second.attributes['agentlog.reply_id'], first.attributes['agentlog.reply_id'])
  assert.is(second.attributes['agentlog.seq.start'], seqOf(agent.log, 'USER_CONFIRM_RESULT'))
  assert.equal(second.attributes['gen_ai.response.finish_reasons'], ['completed'])
})

test('USER_INTERRUPT on a parked reply: the resumed segment ends interrupted with source user_interrupt', async () => {
  const { agent } = makeAgent([[...callTool('c1', 'delete_file', { path: '/x' }), usage(5, 2)]], [askingTool(probe())])
  await agent.reply('delete it')
  await agent.interrupt()
  const otel = memoryTracing()
  traceLog(agent.log, { tracer: otel.tracer })
  const [, second] = named(otel.spans(), 'invoke_agent Friday').sort((a, b) => ms(a.startTime) - ms(b.startTime))
  assert.equal(second.attributes['gen_ai.response.finish_reasons'], ['interrupted'])
  assert.equal(second.events.map((e) => [e.attributes?.['agentlog.interrupt.source'], ms(e.time)]), [['user_interrupt', at(agent.log, 'USER_INTERRUPT')]])
  const [tool] = named(otel.spans(), 'execute_tool delete_file')
  assert.is(tool.attributes['agentlog.tool.result_state'], 'interrupted')
  assert.is(tool.events[0].attributes?.['agentlog.interrupt.source'], 'user_interrupt')
})

test('a denied call and a failing tool are told apart: denied is not an error, a throw is', async () => {
  const failing = { ...slowTool(probe(), { name: 'boom', ms: 1 }) }
  const boom = { ...failing, execute: async () => { throw new Error('disk on fire') } } as typeof failing
  const { agent } = makeAgent([
    [...callTool('c1', 'delete_file', { path: '/x' }), ...callTool('c2', 'boom', { x: 'a' }), usage(5, 2)],
    [...say('ok'), usage(1, 1)],
  ], [askingTool(probe()), boom])
  await agent.reply('go')
  await agent.deny('c1', 'not that file')
  const otel = memoryTracing()
  traceLog(agent.log, { tracer: otel.tracer })
  const [denied] = named(otel.spans(), 'execute_tool delete_file')
  const [failed] = named(otel.spans(), 'execute_tool boom')
  assert.is(denied.attributes['agentlog.tool.result_state'], 'denied')
  assert.is(denied.status.code, SpanStatusCode.UNSET)
  assert.equal(denied.events.map((e) => e.name), ['agentlog.denied'])
  assert.is(failed.attributes['agentlog.tool.result_state'], 'error')
  assert.is(failed.status.code, SpanStatusCode.ERROR)
  assert.is(failed.attributes['error.type'], 'tool_error')
})

test('a model failure ends the chat and reply spans as errors with the error type, not as interrupts', async () => {
  const { agent } = makeAgent([[...say('part'), { type: 'fail', error: new Error('upstream 500') }]], [])
  await agent.reply('go').catch(() => undefined)
  const otel = memoryTracing()
  traceLog(agent.log, { tracer: otel.tracer })
  const [chat] = named(otel.spans(), 'chat scripted')
  const [reply] = named(otel.spans(), 'invoke_agent Friday')
  assert.is(reply.status.code, SpanStatusCode.ERROR)
  assert.equal(reply.attributes['gen_ai.response.finish_reasons'], ['error'])
  assert.ok(typeof reply.attributes['error.type'] === 'string')
  assert.is(chat.status.code, SpanStatusCode.ERROR)
  assert.equal(chat.attributes['gen_ai.response.finish_reasons'], ['error'])
  assert.is(chat.events.length, 0)
})

test('a reply cut by a crash and closed on restore: spans end at the close, with source crash_recovery', async () => {
  const p = probe()
  const { agent } = makeAgent([[...callTool('c1', 'slow', { x: 'a' }), usage(3, 1)]], [slowTool(p, { ms: 10_000 })])
  void collect(agent.replyStream('go'))
  await until(() => p.started.length > 0, 'the tool to start')
  const cut = JSON.parse(JSON.stringify(agent.log)) as AgentEvent[]
  await agent.close()
  const clock = steppedClock(Date.UTC(2026, 0, 2))
  const { agent: restored } = makeAgent([], [], { log: memoryLog(cut), clock })
  const otel = memoryTracing()
  traceLog(restored.log, { tracer: otel.tracer })
  const closedAt = at(restored.log, 'TOOL_RESULT_END')
  assert.ok(closedAt >= Date.UTC(2026, 0, 2), 'the close happened on restore')
  const [tool] = named(otel.spans(), 'execute_tool slow')
  const [reply] = named(otel.spans(), 'invoke_agent Friday')
  assert.is(ms(tool.startTime), at(cut, 'TOOL_RESULT_START'))
  assert.is(tool.attributes['agentlog.tool.result_state'], 'interrupted')
  assert.equal(tool.events.map((e) => [e.attributes?.['agentlog.interrupt.source'], ms(e.time)]), [['crash_recovery', closedAt]])
  assert.is(reply.attributes['agentlog.recovered'], true)
  assert.equal(reply.events.map((e) => e.attributes?.['agentlog.interrupt.source']), ['crash_recovery'])
  assert.is(ms(reply.endTime), at(restored.log, 'REPLY_END'))
})

test('a log that ends inside a running reply ends its open spans at the last event, marked in progress', async () => {
  const p = probe()
  const { agent } = makeAgent([[...callTool('c1', 'slow', { x: 'a' }), usage(3, 1)]], [slowTool(p, { ms: 10_000 })])
  void collect(agent.replyStream('go'))
  await until(() => p.started.length > 0, 'the tool to start')
  const cut = [...agent.log]
  await agent.close()
  const otel = memoryTracing()
  traceLog(cut, { tracer: otel.tracer })
  const spans = otel.spans()
  assert.equal(outline(spans), ['invoke_agent Friday', '  chat scripted', '  execute_tool slow'])
  for (const span of [...named(spans, 'invoke_agent Friday'), ...named(spans, 'execute_tool slow')]) {
    assert.is(span.attributes['agentlog.in_progress'], true)
    assert.is(ms(span.endTime), Date.parse(cut[cut.length - 1].created_at))
  }
})

test('traceLog refuses a missing tracer with a coded error', () => {
  try {
    traceLog([], {} as never)
    assert.unreachable()
  } catch (error) {
    assert.is((error as { code?: string }).code, 'INVALID_OPTION')
  }
})

test.run()
