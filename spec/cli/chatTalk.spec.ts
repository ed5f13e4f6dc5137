// `agentlog chat` and issue 30: a line typed while a reply streams is queued for the agent (said
// dimly) and starts the next reply once this one ends, followed in the terminal; a line starting
// with '!' steers the running reply (the next model request holds it).
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'

const test = suite('cli/chatTalk')
const bin = fileURLToPath(new URL('../../bin/agentlog.js', import.meta.url))

const chunk = (delta: object, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'test', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`

/** An OpenAI-compatible server: "slow" streams 25 words 40 ms apart; anything else is answered "answer to: TEXT". */
const startServer = async (bodies: { messages: { role: string; content: string }[] }[]): Promise<{ server: Server; url: string }> => {
  const server = createServer((req, res) => {
    let raw = ''
    req.on('data', (d) => (raw += d))
    req.on('end', async () => {
      const body = JSON.parse(raw)
      bodies.push(body)
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      const last = String(body.messages.at(-1).content)
      const words = last.includes('slow') ? Array.from({ length: 25 }, (_, i) => `word${i} `) : [`answer to: ${last}`]
      res.write(chunk({ role: 'assistant', content: '' }))
      for (const word of words) {
        res.write(chunk({ content: word }))
        if (words.length > 1) await new Promise((r) => setTimeout(r, 40))
      }
      res.write(chunk({}, 'stop'))
      res.end('data: [DONE]\n\n')
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1` }
}

const run = (url: string) => {
  const child = spawn(process.execPath, [bin, 'chat'], { env: { PATH: process.env.PATH ?? '', OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: url, NO_COLOR: '1' } }) as ChildProcessWithoutNullStreams
  const out = { stdout: '', stderr: '' }
  child.stdout.on('data', (d) => (out.stdout += d))
  child.stderr.on('data', (d) => (out.stderr += d))
  return { child, out, exited: new Promise<number | null>((r) => child.on('exit', (code) => r(code))) }
}

const waitFor = async (check: () => boolean, what: string, ms = 10_000) => {
  const start = Date.now()
  while (!check()) {
    if (Date.now() - start > ms) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 10))
  }
}

test('a line typed while a reply streams is queued, then answered as the next reply; "!text" steers the running one', async () => {
  const bodies: { messages: { role: string; content: string }[] }[] = []
  const { server, url } = await startServer(bodies)
  const { child, out, exited } = run(url)
  try {
    child.stdin.write('tell me something slow\n')
    await waitFor(() => out.stdout.includes('word2'), 'the stream to start')
    child.stdin.write('!and be brief\n')
    child.stdin.write('what next\n')
    await waitFor(() => out.stdout.includes('(steered into this reply) and be brief'), 'the steer to be said')
    await waitFor(() => out.stdout.includes('(queued for the next reply) what next'), 'the queue to be said')
    await waitFor(() => out.stdout.includes('answer to: what next'), 'the queued reply')
    assert.ok(out.stdout.includes('answer to: and be brief'), 'the steered reply went on with one more model call')
    assert.is(bodies.length, 3)
    assert.equal(bodies[1].messages.map((m) => m.role), ['system', 'user', 'assistant', 'user'])
    assert.is(bodies[1].messages.at(-1)!.content, 'and be brief')
    assert.is(bodies[2].messages.at(-1)!.content, 'what next')
    child.stdin.end()
    assert.is(await exited, 0)
  } finally {
    child.kill()
    server.close()
  }
})

test.run()
