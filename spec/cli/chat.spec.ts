// `agentlog chat` as a user runs it: a child process against an OpenAI-compatible test server on
// 127.0.0.1. A question is answered; SIGINT during a slow stream interrupts the reply (the server
// sees the connection close) and the next question goes out with a valid history; missing
// configuration is a one-line error with exit code 2.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'

const test = suite('cli/chat')
const bin = fileURLToPath(new URL('../../bin/agentlog.js', import.meta.url))

interface Seen { bodies: any[]; closedEarly: number }

const chunk = (delta: object, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'test', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`

/** Answers "hello" quickly; answers "slow" one word every 40 ms for a long time. */
const startServer = async (seen: Seen): Promise<{ server: Server; url: string }> => {
  const server = createServer((req, res) => {
    let raw = ''
    req.on('data', (d) => (raw += d))
    req.on('end', async () => {
      const body = JSON.parse(raw)
      seen.bodies.push(body)
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      const last = body.messages.at(-1).content
      const words = String(last).includes('slow') ? Array.from({ length: 200 }, (_, i) => `word${i} `) : ['Hi ', 'there!']
      let closed = false
      res.on('close', () => {
        if (!res.writableFinished) {
          closed = true
          seen.closedEarly++
        }
      })
      res.write(chunk({ role: 'assistant', content: '' }))
      for (const word of words) {
        if (closed) return
        res.write(chunk({ content: word }))
        if (words.length > 2) await new Promise((r) => setTimeout(r, 40))
      }
      res.write(chunk({}, 'stop'))
      res.write(`data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'test', choices: [], usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 } })}\n\n`)
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

const waitFor = async (check: () => boolean, what: string, ms = 8000) => {
  const start = Date.now()
  while (!check()) {
    if (Date.now() - start > ms) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 10))
  }
}

test('a question is answered, streamed from the server', async () => {
  const seen: Seen = { bodies: [], closedEarly: 0 }
  const { server, url } = await startServer(seen)
  const { child, out, exited } = run(['--model', 'test-model'], { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: url })
  child.stdin.write('hello\n')
  await waitFor(() => out.stdout.includes('Hi there!'), 'the answer')
  child.stdin.end()
  assert.is(await exited, 0)
  assert.is(seen.bodies[0].model, 'test-model')
  assert.equal(seen.bodies[0].messages.map((m: { role: string }) => m.role), ['system', 'user'])
  server.close()
})

test('SIGINT during a slow stream interrupts the reply, not the program; the next question has a valid history', async () => {
  const seen: Seen = { bodies: [], closedEarly: 0 }
  const { server, url } = await startServer(seen)
  const { child, out, exited } = run([], { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: url })
  child.stdin.write('tell me something slow\n')
  await waitFor(() => out.stdout.includes('word3'), 'the stream to start')
  child.kill('SIGINT')
  await waitFor(() => out.stdout.includes('[reply interrupted]'), 'the interruption')
  await waitFor(() => seen.closedEarly === 1, 'the server to see the connection close', 2000)
  child.stdin.write('hello\n')
  await waitFor(() => out.stdout.includes('Hi there!'), 'the next answer')
  const history = seen.bodies[1].messages
  assert.equal(history.map((m: { role: string }) => m.role), ['system', 'user', 'assistant', 'user'])
  assert.match(history[2].content, /^word0 word1 word2 word3/, 'the partial answer is kept')
  assert.not.match(out.stdout, 'word199', 'the stream stopped')
  child.stdin.end()
  assert.is(await exited, 0)
  server.close()
})

test('without any configuration: a one-line error and exit code 2', async () => {
  const { out, exited, child } = run([], {})
  child.stdin.end()
  assert.is(await exited, 2)
  const lines = out.stderr.trim().split('\n')
  assert.is(lines.length, 1)
  assert.match(lines[0], /^agentlog chat: no model configured: set OPENAI_API_KEY/)
})

test('an unreachable server is a clear one-line error, and the chat goes on', async () => {
  const { out, exited, child } = run([], { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' })
  child.stdin.write('hello\n')
  await waitFor(() => out.stderr.includes('the model failed'), 'the error', 15000)
  assert.match(out.stderr, /the model failed \(connection\)/)
  child.stdin.end()
  assert.is(await exited, 0)
})

test.run()
