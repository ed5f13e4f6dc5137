// `agentlog chat --mcp "<command>"` as a user runs it: a child process with server-everything
// spawned over stdio and an OpenAI-compatible test server on 127.0.0.1 whose model calls the MCP
// `echo` tool; the tool's answer goes back to the model. A command that cannot start is a one-line
// error with exit code 2.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { chatPiped, chatServer, killChats } from './helpers/chat.js'

const test = suite('cli/chat --mcp')
test.after.each(killChats)
const everything = `"${process.execPath}" node_modules/@modelcontextprotocol/server-everything/dist/index.js stdio`

test("--mcp adds the server's tools; the model calls one and sees its result", async () => {
  const server = await chatServer((_, n) => (n === 0 ? { call: { id: 'call_1', name: 'echo', args: '{"message":"over stdio"}' } } : { text: 'The server echoed it.' }))
  const chat = chatPiped(['--mcp', everything], { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: server.url, NO_COLOR: '1' })
  await chat.waitFor(() => (chat.out.stdout + chat.out.stderr).includes('MCP tools:'), 'the banner', 15_000)
  assert.match(chat.out.stdout + chat.out.stderr, 'echo')
  chat.type('echo something\n')
  await chat.waitFor('The server echoed it.', 'the answer', 15_000)
  chat.child.stdin.end()
  assert.is(await chat.exited, 0)
  assert.ok(server.bodies[0].tools.some((t: { function: { name: string } }) => t.function.name === 'echo'), 'the tools were offered')
  const toolMessage = server.bodies[1].messages.find((m: { role: string }) => m.role === 'tool')
  assert.match(toolMessage.content, 'Echo: over stdio')
  server.close()
})

test('an MCP command that cannot start is a one-line error and exit code 2', async () => {
  const chat = chatPiped(['--mcp', '/nonexistent/mcp-server --flag'], { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' })
  chat.child.stdin.end()
  assert.is(await chat.exited, 2)
  const lines = chat.out.stderr.trim().split('\n')
  assert.is(lines.length, 1)
  assert.match(lines[0], /^agentlog chat: --mcp "\/nonexistent\/mcp-server --flag": Could not list/)
})

test.run()
