// A scripted HTTP server on 127.0.0.1 for the adapter specs: each request takes the next reply
// (status, headers, body writes with pauses, a dropped connection, or a body left open), and the
// server records what it received and when the client closed a response before its end.
import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'

export type Step = string | Uint8Array | { wait: number } | { destroy: true }

export interface Reply {
  status?: number
  headers?: Record<string, string>
  steps?: Step[]
  /** Pause between two writes, so each write reaches the client on its own (default 0). */
  gapMs?: number
  /** Leave the response open after the steps, until the client goes away. */
  hang?: boolean
}

export interface Received {
  method: string
  url: string
  headers: IncomingHttpHeaders
  body: any
  /** performance.now() when the request arrived. */
  at: number
  /** Resolves with performance.now() when the client closed the connection before the response ended. */
  closed: Promise<number>
}

export interface TestServer {
  url: string
  requests: Received[]
  reply(...replies: Reply[]): void
  /** Forgets the received requests and any reply not used yet. */
  reset(): void
  close(): Promise<void>
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export const startServer = async (): Promise<TestServer> => {
  const queue: Reply[] = []
  const requests: Received[] = []
  const server = createServer(async (req, res) => {
    const at = performance.now()
    let onClosed!: (t: number) => void
    const closed = new Promise<number>((resolve) => { onClosed = resolve })
    res.on('close', () => { if (!res.writableEnded) onClosed(performance.now()) })
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const raw = Buffer.concat(chunks).toString('utf8')
    let body: unknown = raw
    try { body = JSON.parse(raw) } catch { /* keep the text */ }
    requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, at, closed })
    const reply = queue.shift() ?? { status: 500, steps: ['{"error":{"message":"no scripted reply"}}'] }
    res.writeHead(reply.status ?? 200, reply.headers ?? { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
    res.flushHeaders()
    for (const step of reply.steps ?? []) {
      if (res.destroyed) return
      if (typeof step === 'object' && 'wait' in step) await pause(step.wait)
      else if (typeof step === 'object' && 'destroy' in step) return void req.socket.destroy()
      else {
        res.write(step)
        if (reply.gapMs !== undefined) await pause(reply.gapMs)
      }
    }
    if (!reply.hang && !res.destroyed) res.end()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    reply: (...replies) => void queue.push(...replies),
    reset: () => {
      queue.length = 0
      requests.length = 0
    },
    close: () => new Promise((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    }),
  }
}
