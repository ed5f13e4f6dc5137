// MCP tools (`npx tsx examples/mcpTools.ts`): the tools of an MCP server spawned over stdio (here
// @modelcontextprotocol/server-everything) become agent tools; `agent.close()` shuts the server down.
import { callTool, createAgent, say, scriptedModel, UserMsg } from 'agentlog'
import { mcpTools } from 'agentlog/node'

const tools = await mcpTools(
  { command: process.execPath, args: ['node_modules/@modelcontextprotocol/server-everything/dist/index.js', 'stdio'], stderr: 'ignore' },
  { include: ['echo', 'get-sum'] },
)
const model = scriptedModel([
  [...callTool('call-1', 'echo', { message: 'hello over MCP' }), ...callTool('call-2', 'get-sum', { a: 2, b: 3 })],
  say('The server echoed the text and added the numbers.'),
])
const agent = createAgent({ name: 'Friday', model, tools })

const msg = await agent.reply(UserMsg({ content: 'Try the MCP tools.' }))
for (const block of msg.content) if (block.type === 'tool_result') console.log(block.name, block.state, JSON.stringify(block.output))
await agent.close()
