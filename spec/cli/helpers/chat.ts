// Driving the real `agentlog chat` in specs: a child process with piped stdin/stdout (or inside a
// pseudo-terminal made by util-linux `script`), and an OpenAI-compatible server on 127.0.0.1 whose
// answers each spec scripts: text, tool calls, or an HTTP status.
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'

export const bin = fileURLToPath(new URL('../../../bin/agentlog.js', import.meta.url))

export type Turn = { text?: string; call?: { id: string; name: string; args: string }; status?: number; delayMs?: number }

export interface ChatServer {
  url: string
  bodies: any[]
  paths: string[]
  close(): void
}

const chunk = (delta: object, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'test', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`

/** Answers request n with `turns(body, n)`: a text, a tool call, or an error status. */
export const chatServer = async (turns: (body: any, n: number) => Turn): Promise<ChatServer> => {
  const bodies: any[] = []
  const paths: string[] = []
  const server: Server = createServer((req, res) => {
    let raw = ''
    req.on('data', (d) => (raw += d))
    req.on('end', async () => {
      paths.push(req.url ?? '')
      const body = raw ? JSON.parse(raw) : {}
      bodies.push(body)
      const turn = turns(body, bodies.length - 1)
      if (turn.status) {
        res.writeHead(turn.status, { 'content-type': 'application/json' })
        return res.end(JSON.stringify({ error: { message: 'no such route' } }))
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write(chunk({ role: 'assistant', content: '' }))
      if (turn.delayMs) await new Promise((r) => setTimeout(r, turn.delayMs))
      if (turn.text) res.write(chunk({ content: turn.text }))
      if (turn.call) res.write(chunk({ tool_calls: [{ index: 0, id: turn.call.id, type: 'function', function: { name: turn.call.name, arguments: turn.call.args } }] }))
      res.write(chunk({}, turn.call ? 'tool_calls' : 'stop'))
      res.end('data: [DONE]\n\n')
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, bodies, paths, close: () => server.close() }
}

export interface ChatChild {
  child: ChildProcessWithoutNullStreams
  out: { stdout: string; stderr: string }
  exited: Promise<number | null>
  type(text: string): void
  waitFor(check: string | RegExp | (() => boolean), what?: string, ms?: number): Promise<void>
}

const live = new Set<ChildProcessWithoutNullStreams>()
/** Kills every chat child still running (a spec's after.each: a failed test must not leave one behind). */
export const killChats = (): void => {
  for (const child of live) child.kill('SIGKILL')
  live.clear()
}

const watch = (child: ChildProcessWithoutNullStreams): ChatChild => {
  live.add(child)
  child.on('exit', () => live.delete(child))
  const out = { stdout: '', stderr: '' }
  child.stdout.on('data', (d) => (out.stdout += d))
  child.stderr.on('data', (d) => (out.stderr += d))
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)))
  return {
    child, out, exited,
    type: (text) => void child.stdin.write(text),
    waitFor: async (check, what = String(check), ms = 10_000) => {
      const test = typeof check === 'function' ? check : () => (typeof check === 'string' ? out.stdout.includes(check) : check.test(out.stdout))
      const start = Date.now()
      while (!test()) {
        if (Date.now() - start > ms) throw new Error(`timed out waiting for ${what}\n--- stdout ---\n${out.stdout}\n--- stderr ---\n${out.stderr}`)
        await new Promise((r) => setTimeout(r, 10))
      }
    },
  }
}

const baseEnv = () => ({ PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' })

/** `agentlog chat ARGS` with piped stdin and stdout. */
export const chatPiped = (args: string[], env: Record<string, string> = {}): ChatChild =>
  watch(spawn(process.execPath, [bin, 'chat', ...args], { env: { ...baseEnv(), ...env } }) as ChildProcessWithoutNullStreams)

export const hasScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).stdout?.includes('util-linux') ?? false

/** `agentlog chat ARGS` in a pseudo-terminal (util-linux `script`): keys typed go through the terminal's line discipline. */
export const chatInTty = (args: string[], env: Record<string, string> = {}): ChatChild => {
  const quoted = [process.execPath, bin, 'chat', ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ')
  return watch(spawn('script', ['-qfec', `stty cols 200; exec ${quoted}`, '/dev/null'], { env: { ...baseEnv(), TERM: 'xterm', ...env } }) as ChildProcessWithoutNullStreams)
}
