// MCP tools (issue 14, part 1), against real servers over stdio: @modelcontextprotocol/server-everything
// and a fixture server with a slow tool that honours its signal. Interrupting cancels the running
// call (the server sees it), a server that ignores it is not waited for, a crash is an error result
// and the next call reconnects, agent.close() shuts the spawned server down.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { AgentError, callTool, outputText, say, UserMsg, type Tool, type ToolResultBlock } from '../../lib/index.js'
import { mcpTools, parseCommandLine } from '../../lib/node.js'
import { sleep } from '../../lib/core/abort.js'
import { checkInvariants, makeAgent } from '../helpers/fixtures.js'
import { isAlive } from '../helpers/expect.js'

const test = suite('mcp')
const fixture = { command: process.execPath, args: ['--import', 'tsx', 'spec/mcp/fixtures/slowServer.ts'], stderr: 'ignore' as const }
const everything = { command: process.execPath, args: ['node_modules/@modelcontextprotocol/server-everything/dist/index.js', 'stdio'], stderr: 'ignore' as const }
const signal = () => new AbortController().signal
const run = async (tool: Tool, input: unknown = {}) => tool.execute!(input as never, { signal: signal(), tool_call_id: 'direct' })
const textOf = (output: unknown) => (output as { output: { type: string; text?: string }[] }).output.map((b) => b.text ?? '').join('')
const resultOf = (tools: { state: { context: { content: { type: string }[] }[] } }, index = -1) =>
  tools.state.context.at(index)!.content.filter((b): b is ToolResultBlock => b.type === 'tool_result')
const byName = (tools: Tool[], name: string) => tools.find((t) => t.name === name)!
test('server-everything: tools listed with include/exclude and a prefix; an agent calls them; text, image and structured content arrive', async () => {
  const tools = await mcpTools(everything, { include: ['echo', 'get-sum', 'get-tiny-image', 'get-structured-content'], exclude: ['get-sum'], prefix: 'ev_' })
  assert.equal(tools.map((t) => t.name).sort(), ['ev_echo', 'ev_get-structured-content', 'ev_get-tiny-image'])
  assert.equal(byName(tools, 'ev_echo').spec.input_schema, { type: 'object', properties: { message: { type: 'string', description: 'Message to echo' } }, required: ['message'] })
  const { agent } = makeAgent([
    [...callTool('c1', 'ev_echo', { message: 'hello' }), ...callTool('c2', 'ev_get-tiny-image', {}), ...callTool('c3', 'ev_get-structured-content', { location: 'Chicago' })],
    say('Done.'),
  ], tools)
  await agent.reply(UserMsg({ content: 'try the tools' }))
  const [echo, image, structured] = resultOf(agent)
  assert.is(echo.state, 'success')
  assert.match(JSON.stringify(echo.output), 'Echo: hello')
  assert.ok(Array.isArray(image.output) && image.output.some((b) => b.type === 'data' && b.source.type === 'base64' && b.source.media_type === 'image/png' && b.source.data.length > 100), 'the image is a data block')
  assert.ok(typeof structured.metadata.structured_content === 'object', 'structuredContent is kept in the metadata')
  assert.match(JSON.stringify(structured.output), 'temperature')
  checkInvariants(agent)
  await agent.close()
})

test('JSON Schema arguments are validated before the call: a bad argument is an error result the model can fix, and the server is not called', async () => {
  const tools = await mcpTools(everything, { include: ['get-sum'] })
  const { agent } = makeAgent([callTool('c1', 'get-sum', { a: 'one', b: 2 }), callTool('c2', 'get-sum', { a: 1, b: 2 }), say('3.')], tools)
  await agent.reply(UserMsg({ content: 'add' }))
  const [bad, good] = resultOf(agent)
  assert.is(bad.state, 'error')
  assert.match(String(bad.output), 'invalid arguments for "get-sum"')
  assert.is(good.state, 'success')
  assert.match(JSON.stringify(good.output), '3')
  await agent.close()
})

test('interrupting a reply cancels the running MCP call: the server receives notifications/cancelled', async () => {
  const tools = await mcpTools(fixture)
  const { agent } = makeAgent([callTool('c1', 'slow', { label: 'first' })], tools)
  const pending = agent.reply(UserMsg({ content: 'go' }))
  while (!agent.state.reply_msg?.content.some((b) => b.type === 'tool_result')) await sleep(2)
  await sleep(50)
  await agent.interrupt()
  const msg = await pending
  assert.is(msg.finished_reason, 'interrupted')
  assert.is(resultOf(agent)[0].state, 'interrupted')
  let cancelled: string[] = []
  for (let i = 0; i < 200 && cancelled.length === 0; i++) {
    cancelled = JSON.parse(textOf(await run(byName(tools, 'cancellations'))))
    if (!cancelled.length) await sleep(10)
  }
  assert.equal(cancelled, ['first'], 'the server saw the cancellation of that call')
  checkInvariants(agent)
  await agent.close()
})

test('a server that ignores the cancellation is not waited for: the reply ends interrupted and its late answer is dropped', async () => {
  const tools = await mcpTools(fixture, { include: ['stubborn'] })
  const { agent } = makeAgent([callTool('c1', 'stubborn', {}), say('unused')], tools)
  const controller = new AbortController()
  const pending = agent.reply(UserMsg({ content: 'go' }), { signal: controller.signal })
  while (!agent.state.reply_msg?.content.some((b) => b.type === 'tool_result')) await sleep(2)
  controller.abort()
  const msg = await pending
  assert.is(msg.finished_reason, 'interrupted')
  assert.not.match(JSON.stringify(agent.state.context), 'too late')
  assert.is(agent.state.status, 'idle')
  await agent.close()
})

test('a server that crashes mid-call gives that call an error result; the next call starts a new server', async () => {
  const tools = await mcpTools(fixture, { include: ['crash', 'pid'] })
  const before = Number(textOf(await run(byName(tools, 'pid'))))
  const { agent } = makeAgent([callTool('c1', 'crash', {}), say('It crashed.')], tools)
  await agent.reply(UserMsg({ content: 'crash it' }))
  const [crashed] = resultOf(agent)
  assert.is(crashed.state, 'error')
  assert.match(outputText(crashed.output), 'failed')
  for (let i = 0; i < 200 && isAlive(before); i++) await sleep(10)
  assert.not.ok(isAlive(before), 'the first server is gone')
  const after = Number(textOf(await run(byName(tools, 'pid'))))
  assert.ok(after > 0 && after !== before, 'a new server process answers')
  checkInvariants(agent)
  await agent.close()
})

test('isError becomes an error result; every kind of content becomes text and data blocks', async () => {
  const tools = await mcpTools(fixture, { include: ['fails', 'shapes'] })
  const { agent } = makeAgent([[...callTool('c1', 'fails', { why: 'no disk' }), ...callTool('c2', 'shapes', {})], say('ok')], tools)
  await agent.reply(UserMsg({ content: 'go' }))
  const [failed, shapes] = resultOf(agent)
  assert.is(failed.state, 'error')
  assert.match(JSON.stringify(failed.output), 'failed: no disk')
  assert.is(shapes.state, 'success')
  const blocks = shapes.output as Exclude<ToolResultBlock['output'], string>
  assert.equal(blocks.map((b) => (b.type === 'text' ? `text:${b.text}` : `data:${b.source.type}:${b.source.media_type}`)), [
    'text:plain', 'data:base64:image/png', 'data:base64:audio/wav', 'text:[resource file:///notes.txt]\nnote body',
    'data:base64:application/octet-stream', 'data:url:text/html', 'text:{"total":6}',
  ])
  assert.equal(shapes.metadata, { structured_content: { total: 6 } })
  checkInvariants(agent)
  await agent.close()
})

test('agent.close() shuts the spawned server down, once for all its tools; a later call starts a new one', async () => {
  const tools = await mcpTools(fixture)
  const pid = Number(textOf(await run(byName(tools, 'pid'))))
  assert.ok(isAlive(pid))
  const { agent } = makeAgent([], tools)
  await agent.close()
  for (let i = 0; i < 300 && isAlive(pid); i++) await sleep(10)
  assert.not.ok(isAlive(pid), 'the server process has exited')
  const next = Number(textOf(await run(byName(tools, 'pid'))))
  assert.ok(next > 0 && next !== pid && isAlive(next), 'tools shared with another agent still work')
  await tools[0].close!()
  for (let i = 0; i < 300 && isAlive(next); i++) await sleep(10)
  assert.not.ok(isAlive(next))
})

test("a client the caller connected is used as it is: agent.close() leaves it open", async () => {
  const client = new Client({ name: 'mine', version: '1.0.0' })
  await client.connect(new StdioClientTransport(everything))
  const tools = await mcpTools(client, { include: ['echo'] })
  const { agent } = makeAgent([callTool('c1', 'echo', { message: 'mine' }), say('ok')], tools)
  await agent.reply(UserMsg({ content: 'go' }))
  assert.match(JSON.stringify(resultOf(agent)[0].output), 'Echo: mine')
  await agent.close()
  assert.ok((await client.listTools()).tools.length > 0, 'still connected')
  await client.close()
})

test('bad connections and options are refused with a code that says what to fix', async () => {
  const refused = async (promise: () => Promise<unknown>, code: string, text: string) => {
    try {
      await promise()
      assert.unreachable('refused')
    } catch (error) {
      assert.instance(error, AgentError)
      assert.is((error as AgentError).code, code)
      assert.match((error as Error).message, text)
    }
  }
  await refused(() => mcpTools(fixture, { include: ['nope'] }), 'INVALID_OPTION', 'include names "nope"')
  await refused(() => mcpTools({ command: '/nonexistent/mcp-server', stderr: 'ignore' }), 'MCP_CONNECTION', 'Could not list')
  await refused(() => mcpTools('not a url'), 'INVALID_OPTION', 'is not a URL')
  await refused(() => mcpTools(fixture, { permission: 'maybe' as never }), 'INVALID_OPTION', 'permission')
  await refused(async () => mcpTools(42 as never), 'INVALID_OPTION', 'expected a URL')
})

test('parseCommandLine splits a command line, keeping quoted words together', () => {
  assert.equal(parseCommandLine(`npx -y "@scope/server name" --dir '/tmp/a b'`), { command: 'npx', args: ['-y', '@scope/server name', '--dir', '/tmp/a b'] })
  assert.throws(() => parseCommandLine('   '), (e: unknown) => e instanceof AgentError && e.code === 'INVALID_OPTION')
})

test.run()
