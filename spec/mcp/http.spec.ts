// MCP tools over Streamable HTTP: a real SDK server on 127.0.0.1 (an ephemeral port), stateless,
// with a tool that reports the request's authorization header; the agent calls it and the headers
// given to mcpTools arrive.
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { z } from 'zod'
import { callTool, say, UserMsg, type ToolResultBlock } from '../../lib/index.js'
import { mcpTools } from '../../lib/mcp/index.js'
import { checkInvariants, makeAgent } from '../helpers/fixtures.js'

const test = suite('mcp/http')

const serve = async () => {
  const seen: string[] = []
  const server = http.createServer(async (req, res) => {
    seen.push(String(req.headers.authorization))
    const mcp = new McpServer({ name: 'http-fixture', version: '1.0.0' })
    mcp.registerTool('shout', { description: 'Upper-cases a text.', inputSchema: { text: z.string() } }, ({ text }) => ({ content: [{ type: 'text', text: text.toUpperCase() }] }))
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined })
    res.on('close', () => {
      void transport.close()
      void mcp.close()
    })
    await mcp.connect(transport)
    await transport.handleRequest(req, res)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`
  return { url, seen, close: () => new Promise<void>((resolve) => server.close(() => resolve())) }
}

test('the tools of a Streamable HTTP server, called by an agent, with the given headers on every request', async () => {
  const server = await serve()
  const tools = await mcpTools({ url: server.url, headers: { authorization: 'Bearer secret' } })
  assert.equal(tools.map((t) => t.name), ['shout'])
  const { agent } = makeAgent([callTool('c1', 'shout', { text: 'hello' }), say('Done.')], tools)
  await agent.reply(UserMsg({ content: 'shout' }))
  const result = agent.state.context.at(-1)!.content.find((b): b is ToolResultBlock => b.type === 'tool_result')!
  assert.is(result.state, 'success')
  assert.match(JSON.stringify(result.output), 'HELLO')
  assert.ok(server.seen.length >= 3 && server.seen.every((h) => h === 'Bearer secret'), 'every request carried the header')
  checkInvariants(agent)
  await agent.close()
  await server.close()
})

test.run()
