// `agentlog chat --mcp "<command>"` as a user runs it: a child process with server-everything
// spawned over stdio and an OpenAI-compatible test server on 127.0.0.1 whose model calls the MCP
// `echo` tool; the tool's answer goes back to the model. A command that cannot start is a one-line
// error with exit code 2.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'

const test = suite('cli/chat --mcp')
const bin = fileURLToPath(new URL('../../bin/agentlog.js', import.meta.url))
const everything = `"${process.execPath}" node_modules/@modelcontextprotocol/server-everything/dist/index.js stdio`

const sse = (choices: object[], usage?: object) => `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'test', choices, ...(usage ? { usage } : {}) })}\n\n`

const startServer = async (bodies: any[]) => {
  const server = createServer((req, res) => {
    let raw = ''
    req.on('data', (d) => (raw += d))
    req.on('end', () => {
      bodies.push(JSON.parse(raw))
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      if (bodies.length === 1) {
        res.write(sse([{ index: 0, delta: { tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'echo', arguments: '{"message":"over stdio"}' } }] }, finish_reason: null }]))
        res.write(sse([{ index: 0, delta: {}, finish_reason: 'tool_calls' }]))
      } else {
        res.write(sse([{ index: 0, delta: { content: 'The server echoed it.' }, finish_reason: null }]))
        res.write(sse([{ index: 0, delta: {}, finish_reason: 'stop' }]))
      }
      res.end('data: [DONE]\n\n')
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1` }
}

const run = (args: string[], env: Record<string, string>) => {
  const child = spawn(process.execPath, [bin, 'chat', ...args], { env: { PATH: process.env.PATH ?? '', ...env } }) as ChildProcessWithoutNullStreams
  const out = { stdout: '', stderr: '' }
  child.stdout.on('data', (d) => (out.stdout += d))
  child.stderr.on('data', (d) => (out.stderr += d))
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)))
  return { child, out, exited }
}

const waitFor = async (check: () => boolean, what: string, ms = 15000) => {
  const start = Date.now()
  while (!check()) {
    if (Date.now() - start > ms) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 10))
  }
}

test("--mcp adds the server's tools; the model calls one and sees its result", async () => {
  const bodies: any[] = []
  const { server, url } = await startServer(bodies)
  const { child, out, exited } = run(['--mcp', everything], { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: url })
  await waitFor(() => (out.stdout + out.stderr).includes('MCP tools:'), 'the banner')
  assert.match(out.stdout + out.stderr, 'echo')
  child.stdin.write('echo something\n')
  await waitFor(() => out.stdout.includes('The server echoed it.'), 'the answer')
  child.stdin.end()
  assert.is(await exited, 0)
  assert.ok(bodies[0].tools.some((t: { function: { name: string } }) => t.function.name === 'echo'), 'the tools were offered')
  const toolMessage = bodies[1].messages.find((m: { role: string }) => m.role === 'tool')
  assert.match(toolMessage.content, 'Echo: over stdio')
  server.close()
})

test('an MCP command that cannot start is a one-line error and exit code 2', async () => {
  const { out, exited, child } = run(['--mcp', '/nonexistent/mcp-server --flag'], { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' })
  child.stdin.end()
  assert.is(await exited, 2)
  const lines = out.stderr.trim().split('\n')
  assert.is(lines.length, 1)
  assert.match(lines[0], /^agentlog chat: --mcp "\/nonexistent\/mcp-server --flag": Could not list/)
})

test.run()
