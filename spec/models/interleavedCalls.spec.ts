// Issue 9, items 5 and 6 over the wire: an OpenAI-compatible server that streams fragments of two
// tool calls alternately by index, a well-formed stream where a call has `arguments: ""` and
// another follows (its `{}` comes at finish_reason), and a server that numbers calls `call_0` per
// response: every call gets all of its arguments, and the agent's log passes its own checks.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { z } from 'zod'
import { createAgent, defineTool, UserMsg, type ToolCallBlock } from '../../lib/index.js'
import { openAIChatModel } from '../../lib/models/openai.js'
import { assertAgentHolds } from '../helpers/hardening.js'
import { startServer, type TestServer } from './helpers/server.js'
import { oaChunk, oaStream, oaToolArgs, oaToolStart } from './helpers/wire.js'

const test = suite<{ server: TestServer }>('models/interleaved calls')

test.before(async (context) => {
  context.server = await startServer()
})
test.after(async ({ server }) => server.close())
test.before.each(({ server }) => server.reset())

const calls = (deltas: Record<string, unknown>[][]) => ({ steps: [oaStream([...deltas.map((tool_calls) => oaChunk({ tool_calls })), oaChunk({}, 'tool_calls')])] })
const text = (content: string) => ({ steps: [oaStream([oaChunk({ content }), oaChunk({}, 'stop')])] })

const run = async (server: TestServer) => {
  const seen: unknown[] = []
  const echo = defineTool({ name: 'echo', description: 'Echoes', input: z.object({ v: z.string() }).partial(), execute: (input) => { seen.push(input); return 'ok' } })
  const agent = createAgent({ name: 'A', model: openAIChatModel({ model: 'm', apiKey: 'k', baseURL: server.url, maxRetries: 0 }), tools: [echo] })
  const msg = await agent.reply(UserMsg({ content: 'go' }))
  assert.is(msg.finished_reason, 'completed')
  assertAgentHolds(agent)
  const blocks = agent.state.context[1].content.filter((b): b is ToolCallBlock => b.type === 'tool_call')
  return { seen, blocks }
}

test('fragments of two calls alternating by index each go to their own call', async ({ server }) => {
  server.reply(calls([
    [oaToolStart(0, 'call_a', 'echo')], [oaToolArgs(0, '{"v":')],
    [oaToolStart(1, 'call_b', 'echo')], [oaToolArgs(1, '{"v":"b"}')],
    [oaToolArgs(0, '"a"}')],
  ]), text('done'))
  const { seen, blocks } = await run(server)
  assert.equal(blocks.map((b) => [b.id, b.input]), [['call_a', '{"v":"a"}'], ['call_b', '{"v":"b"}']])
  assert.equal(seen, [{ v: 'a' }, { v: 'b' }])
})

test('a call with arguments "" followed by another gets its {} before its TOOL_CALL_END', async ({ server }) => {
  server.reply(calls([[oaToolStart(0, 'call_a', 'echo')], [oaToolStart(1, 'call_b', 'echo')], [oaToolArgs(1, '{"v":"b"}')]]), text('done'))
  const { seen, blocks } = await run(server)
  assert.equal(blocks.map((b) => [b.id, b.input]), [['call_a', '{}'], ['call_b', '{"v":"b"}']])
  assert.equal(seen, [{}, { v: 'b' }])
})

test('call ids numbered per response (call_0 twice in one reply) stay distinct in the log', async ({ server }) => {
  server.reply(
    calls([[oaToolStart(0, 'call_0', 'echo')], [oaToolArgs(0, '{"v":"1"}')]]),
    calls([[oaToolStart(0, 'call_0', 'echo')], [oaToolArgs(0, '{"v":"2"}')]]),
    text('done'),
  )
  const { seen, blocks } = await run(server)
  assert.is(new Set(blocks.map((b) => b.id)).size, 2)
  assert.equal(seen, [{ v: '1' }, { v: '2' }])
  const sent = server.requests[2].body.messages as { role: string; tool_call_id?: string; tool_calls?: { id: string }[] }[]
  const results = sent.filter((m) => m.role === 'tool').map((m) => m.tool_call_id)
  const asked = sent.flatMap((m) => m.tool_calls?.map((c) => c.id) ?? [])
  assert.equal(results, asked, 'each result answers the call it belongs to, in the request sent back')
})

test.run()
