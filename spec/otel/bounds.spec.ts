// What a client or a long reply cannot blow up: `http.route` is the template a request matched
// (junk paths add no series, the real routes keep theirs) and recorded contents are cut to
// maxContentLength characters (DEFAULT_MAX_CONTENT_LENGTH unless given), saying so.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { callTool, createHub, createServer, memoryStore, say, scriptedModel, usage } from 'agentlog'
import { listen } from 'agentlog/node'
import { DEFAULT_MAX_CONTENT_LENGTH, instrument, instrumentServer, traceLog } from 'agentlog/otel'
import { makeAgent, probe, slowTool } from '../helpers/fixtures.js'
import { memoryMetrics, memoryTracing, named } from './helpers.js'

const test = suite('otel/bounds')

test('http.route is the matched template: 300 junk paths add no route value, the real routes are counted by template', async () => {
  const hub = createHub({ store: memoryStore(), agent: () => ({ name: 'Served', model: scriptedModel([[...say('hi'), usage(1, 1)]], { onExhausted: 'repeat-last' }) }) })
  const meters = memoryMetrics()
  const server = await listen(instrumentServer(createServer({ hub }), { meterProvider: meters.provider }), { port: 0 })
  try {
    for (let i = 0; i < 300; i++) {
      const path = i % 3 === 0 ? `/junk-${i}` : i % 3 === 1 ? `/sessions/s${i}/junk-${i}` : `/sessions/s${i}/replies/${i}`
      await (await fetch(`${server.url}${path}`, { method: i % 2 ? 'GET' : 'PURGE' })).text()
    }
    await (await fetch(`${server.url}/sessions`)).text()
    for (const id of ['a', 'b']) await (await fetch(`${server.url}/sessions/${id}`)).text()
    const points = (await meters.collect())['http.server.request.duration'] ?? []
    const routes = new Set(points.map((p) => p.attributes['http.route']))
    assert.equal([...routes].filter((r) => r !== undefined).sort(), ['/sessions', '/sessions/:id'])
    const methods = new Set(points.map((p) => p.attributes['http.request.method']))
    assert.equal([...methods].sort(), ['GET', '_OTHER'], 'an unknown method is _OTHER')
    assert.ok(points.length <= 8, `a handful of series, not one per path: ${points.length}`)
  } finally {
    await server.close()
    await hub.close()
  }
})

test('captureContent cuts every recorded text at the default length, saying so; maxContentLength sets another', async () => {
  const long = 'x'.repeat(50_000)
  const { agent } = makeAgent([[...callTool('c1', 'slow', { x: long }), usage(1, 1)], [...say(`answer ${long}`, 20), usage(1, 1)]], [slowTool(probe(), { ms: 1 })])
  await agent.reply(`question ${long}`)
  for (const max of [undefined, 100]) {
    const otel = memoryTracing()
    traceLog(agent.log, { tracer: otel.tracer, captureContent: true, ...(max ? { maxContentLength: max } : {}) })
    const limit = max ?? DEFAULT_MAX_CONTENT_LENGTH
    const [reply] = named(otel.spans(), 'invoke_agent Friday')
    const [tool] = named(otel.spans(), 'execute_tool slow')
    const texts = {
      input: (JSON.parse(String(reply.attributes['gen_ai.input.messages'])) as { parts: { content: string }[] }[])[0].parts[0].content,
      output: (JSON.parse(String(reply.attributes['gen_ai.output.messages'])) as { parts: { content: string }[] }[])[0].parts[0].content,
      args: String(tool.attributes['gen_ai.tool.call.arguments']),
      result: String(tool.attributes['gen_ai.tool.call.result']),
    }
    for (const [what, text] of Object.entries(texts)) {
      assert.ok(text.length < limit + 40, `${what} is cut near ${limit}: ${text.length}`)
      assert.ok(text.includes(`cut at ${limit} characters`), `${what} says it was cut`)
    }
    assert.ok(texts.input.startsWith('question xxx'), 'the start of the text is kept')
  }
})

test('instrument refuses a maxContentLength that is not a whole number of at least 1 (INVALID_OPTION)', () => {
  const { agent } = makeAgent([], [])
  for (const bad of [0, -1, 1.5, '100', Number.NaN]) {
    try {
      instrument(agent, { maxContentLength: bad as number })
      assert.unreachable(`accepted ${String(bad)}`)
    } catch (error) {
      assert.is((error as { code?: string }).code, 'INVALID_OPTION')
    }
  }
})

test.run()
