// `agentlog trace`: a stored session's spans sent through the official OTLP/HTTP exporter to a small
// collector this spec runs on 127.0.0.1 (what arrives is checked: names, tree, the log's times,
// resource), or printed with --json; a sub-agent's session of the same store comes along; refusals.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { callTool, createHub, say, scriptedModel, usage, type AgentEvent } from 'agentlog'
import { directoryStore } from 'agentlog/node'
import { traceLog } from 'agentlog/otel'
import { main } from '../../lib/cli/main.js'
import { probe, slowTool } from '../helpers/fixtures.js'
import { attr, collector } from './collector.js'
import { memoryTracing, shapes } from './helpers.js'
import { tree } from './treeLogs.js'

const test = suite('otel/trace command')

const run = async (args: string[]) => {
  const out: string[] = []
  const err: string[] = []
  const code = await main(args, { out: (t) => void out.push(t), err: (t) => void err.push(t) })
  return { code, out: out.join('\n'), err: err.join('\n') }
}

/** A sessions directory with a session whose reply called a tool. */
const storeWithSession = async () => {
  const dir = mkdtempSync(join(tmpdir(), 'agentlog-trace-'))
  const store = directoryStore(dir)
  const hub = createHub({ store, agent: () => ({ name: 'Tracer', model: scriptedModel([[...callTool('c1', 'slow', { x: 'a' }), usage(4, 2)], [...say('done'), usage(6, 1)]]), tools: [slowTool(probe(), { ms: 1 })] }) })
  const { session_id } = await hub.create()
  await hub.session(session_id).reply('go')
  await hub.close()
  const log = await (async () => {
    const reader = directoryStore(dir)
    const events = await reader.read(session_id)
    await reader.close()
    return events
  })()
  return { dir, session_id, log, cleanup: () => rmSync(dir, { recursive: true, force: true }) }
}


test('--otlp sends the session\'s spans through the official exporter; the collector gets the tree at the log\'s times', async () => {
  const { dir, session_id, log, cleanup } = await storeWithSession()
  const otlp = await collector()
  try {
    const result = await run(['trace', dir, '--session', session_id, '--otlp', otlp.url, '--service', 'my-agents'])
    assert.is(result.code, 0, result.err)
    assert.match(result.out, /^sent 4 spans \(1 replies, 1 session\) to http:\/\/127\.0\.0\.1:\d+\/v1\/traces$/)
    assert.is(otlp.received.length, 1)
    assert.is(otlp.received[0].path, '/v1/traces')
    assert.match(otlp.received[0].contentType, /json/)
    const [resource] = otlp.received[0].body.resourceSpans
    assert.is(resource.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue, 'my-agents')
    const spans = resource.scopeSpans.flatMap((s) => s.spans)
    assert.equal(spans.map((s) => s.name).sort(), ['chat scripted', 'chat scripted', 'execute_tool slow', 'invoke_agent Tracer'])
    const root = spans.find((s) => s.name === 'invoke_agent Tracer')!
    assert.ok(!root.parentSpanId)
    for (const span of spans.filter((s) => s !== root)) {
      assert.is(span.parentSpanId, root.spanId)
      assert.is(span.traceId, root.traceId)
    }
    const tool = spans.find((s) => s.name === 'execute_tool slow')!
    const start = log.find((e) => e.type === 'TOOL_RESULT_START')!
    assert.is(BigInt(tool.startTimeUnixNano), BigInt(Date.parse(start.created_at)) * 1_000_000n, 'the log\'s own time')
    assert.is(attr(tool, 'gen_ai.tool.call.id'), 'c1')
    assert.is(attr(root, 'agentlog.session_id'), session_id)
  } finally {
    await otlp.close()
    cleanup()
  }
})

test('--json prints the spans traceLog makes of a log file', async () => {
  const { dir, session_id, log, cleanup } = await storeWithSession()
  try {
    const result = await run(['trace', join(dir, `${session_id}.jsonl`), '--json'])
    assert.is(result.code, 0, result.err)
    const printed = JSON.parse(result.out) as { name: string; parentSpanId: string | null; spanId: string; startTime: string; attributes: Record<string, unknown> }[]
    const otel = memoryTracing()
    traceLog(log as AgentEvent[], { tracer: otel.tracer })
    const expected = shapes(otel.spans())
    assert.equal(printed.map((s) => s.name), expected.map((s) => s.name))
    assert.equal(printed.map((s) => s.attributes), expected.map((s) => s.attributes))
    assert.equal(printed.map((s) => Date.parse(s.startTime)), expected.map((s) => s.start))
    assert.not.ok(result.out.includes('"go"'), 'no message content without --content')
  } finally {
    cleanup()
  }
})

test('a session of a store brings its sub-agents\' sessions: each child reply nests under its parent call', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'agentlog-trace-tree-'))
  try {
    const store = directoryStore(dir)
    for (const [id, events] of Object.entries(tree())) {
      await store.create({ session_id: id })
      const log = await store.open(id)
      log.append(events, { expectedSeq: 0 })
      await log.close()
    }
    await store.close()
    const result = await run(['trace', dir, '--session', 'root', '--json'])
    assert.is(result.code, 0, result.err)
    const spans = JSON.parse(result.out) as { name: string; spanId: string; parentSpanId: string | null; traceId: string }[]
    const byName = (name: string) => spans.find((s) => s.name === name)!
    assert.is(byName('invoke_agent Researcher').parentSpanId, byName('execute_tool researcher').spanId)
    assert.is(byName('invoke_agent Fetcher').parentSpanId, byName('execute_tool fetcher').spanId)
    assert.is(new Set(spans.map((s) => s.traceId)).size, 1)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

test('refusals: neither or both of --otlp and --json (usage), a bad URL, a collector that refuses (EXPORT_FAILED)', async () => {
  const { dir, session_id, cleanup } = await storeWithSession()
  const otlp = await collector(400)
  try {
    assert.is((await run(['trace', dir, '--session', session_id])).code, 2)
    assert.is((await run(['trace', dir, '--session', session_id, '--json', '--otlp', otlp.url])).code, 2)
    const bad = await run(['trace', dir, '--session', session_id, '--otlp', 'ftp://x'])
    assert.is(bad.code, 1)
    assert.match(bad.err, /INVALID_OPTION/)
    const refused = await run(['trace', dir, '--session', session_id, '--otlp', otlp.url])
    assert.is(refused.code, 1)
    assert.match(refused.err, /EXPORT_FAILED/)
  } finally {
    await otlp.close()
    cleanup()
  }
})

test.run()
