// `agentlog serve --otlp URL` as a real child process: every reply it serves is traced live (the
// instrument(hub) spans) and sent through the official OTLP/HTTP exporter to a small collector on
// 127.0.0.1; a request's traceparent is continued; what is left is sent when the server stops. A bad
// URL is refused before anything is created.
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { readSse } from '../../lib/client/sse.js'
import { serveProcess } from '../helpers/serveProcess.js'
import { attr, collector } from './collector.js'
import { until } from './helpers.js'

const test = suite('otel/serve --otlp')

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736'
const PARENT_ID = '00f067aa0ba902b7'

test('serve --otlp sends every served reply\'s spans to the collector, continuing the request\'s traceparent', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'agentlog-serve-otlp-'))
  const otlp = await collector()
  const server = serveProcess(['--scripted', '--store', dir, '--otlp', otlp.url, '--service', 'served-agents'])
  try {
    const url = await server.url
    await until(() => server.out.stdout.includes(`sending traces to ${otlp.url}/v1/traces`), 'serve to say where the traces go')
    const { session_id } = (await (await fetch(`${url}/sessions`, { method: 'POST' })).json()) as { session_id: string }
    const response = await fetch(`${url}/sessions/${session_id}/replies`, {
      method: 'POST', headers: { 'content-type': 'application/json', traceparent: `00-${TRACE_ID}-${PARENT_ID}-01` }, body: JSON.stringify({ input: 'hi' }),
    })
    for await (const _ of readSse(response)) { /* the reply runs to its end */ }
    assert.is(await server.stop(), 0)
    const batches = otlp.received.filter((r) => r.path === '/v1/traces')
    assert.ok(batches.length > 0, 'the spans were sent (at the latest when the server stopped)')
    const resources = batches.flatMap((b) => b.body.resourceSpans)
    assert.ok(resources.every((r) => r.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue === 'served-agents'))
    const spans = resources.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans))
    const [reply] = spans.filter((s) => s.name === 'invoke_agent assistant')
    assert.ok(reply, `the reply's span arrived (got ${spans.map((s) => s.name).join(', ')})`)
    assert.is(reply.traceId, TRACE_ID, 'the caller\'s trace goes on')
    assert.is(reply.parentSpanId, PARENT_ID)
    assert.is(attr(reply, 'agentlog.session_id'), session_id)
    assert.ok(spans.some((s) => s.name.startsWith('chat ') && s.parentSpanId === reply.spanId), 'the model call nests under the reply')
  } finally {
    if (server.child.exitCode === null) await server.stop()
    await otlp.close()
    rmSync(dir, { recursive: true, force: true })
  }
})

test('serve refuses a bad --otlp URL, and --service without --otlp, before creating anything', async () => {
  const dir = join(mkdtempSync(join(tmpdir(), 'agentlog-serve-otlp-')), 'sessions')
  const bad = serveProcess(['--scripted', '--store', dir, '--otlp', 'ftp://collector'])
  assert.is.not(await bad.exited, 0)
  assert.match(bad.out.stderr, /--otlp needs an http\(s\) URL/)
  const lonely = serveProcess(['--scripted', '--store', dir, '--service', 'x'])
  assert.is.not(await lonely.exited, 0)
  assert.match(lonely.out.stderr, /give --otlp too/)
  assert.not.ok(existsSync(dir), 'no sessions directory was created')
})

test.run()
