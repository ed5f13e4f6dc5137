// listen(): serves a fetch handler on Node's http (agentlog/node). Requests become web Requests
// whose signal aborts when the client goes away; response bodies are written with backpressure and
// cancelled when the socket closes. It binds to 127.0.0.1 by default and refuses a public host for
// a handler that requires no token.
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { Readable } from 'node:stream'
import { AgentError } from '../errors.js'
import type { FetchHandler } from './index.js'

export interface ListenOptions {
  /** Default 8787; 0 picks a free port (read it from `url`). */
  port?: number
  /** Default 127.0.0.1. Any other than loopback needs a handler created with a token. */
  host?: string
}

export interface Listening {
  readonly url: string
  readonly server: Server
  close(): Promise<void>
}

const LOOPBACK = /^(127(\.\d{1,3}){3}|::1|localhost)$/

export const listen = async (handler: FetchHandler, { port = 8787, host = '127.0.0.1' }: ListenOptions = {}): Promise<Listening> => {
  if (!LOOPBACK.test(host) && !handler.authenticated)
    throw new AgentError('INVALID_OPTION', `listen: host ${host} is reachable from other machines; create the server with a token (createServer({ hub, token })) or bind to 127.0.0.1.`)
  const server = createHttpServer((req, res) => void serve(handler, req, res, host))
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => resolve())
  })
  const address = server.address()
  const bound = typeof address === 'object' && address ? address.port : port
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${bound}`,
    server,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve())
      server.closeAllConnections()
    }),
  }
}

const serve = async (handler: FetchHandler, req: IncomingMessage, res: ServerResponse, host: string) => {
  const gone = new AbortController()
  res.once('close', () => gone.abort())
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD'
  const request = new Request(`http://${req.headers.host ?? host}${req.url ?? '/'}`, {
    method: req.method,
    headers: Object.entries(req.headers).flatMap(([name, value]) => (Array.isArray(value) ? value.map((v): [string, string] => [name, v]) : value === undefined ? [] : [[name, value]])),
    signal: gone.signal,
    ...(hasBody ? { body: Readable.toWeb(req) as ReadableStream<Uint8Array>, duplex: 'half' } : {}),
  } as RequestInit)
  let response: Response
  try {
    response = await handler(request)
  } catch {
    response = new Response(JSON.stringify({ code: 'INTERNAL', message: 'The server failed while handling the request.' }), { status: 500 })
  }
  res.writeHead(response.status, Object.fromEntries(response.headers))
  if (!response.body) return void res.end()
  res.flushHeaders()
  const reader = response.body.getReader()
  gone.signal.addEventListener('abort', () => void reader.cancel().catch(() => {}))
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done || res.destroyed) break
      if (!res.write(value)) await drained(res)
    }
  } catch {
    // the body was cancelled (the client left) or failed: nothing more to write
  }
  res.end()
}

/** Resolves on the response's next 'drain' or 'close', removing both listeners either way. */
const drained = (res: ServerResponse) => new Promise<void>((resolve) => {
  const done = () => {
    res.off('drain', done).off('close', done)
    resolve()
  }
  res.on('drain', done).on('close', done)
})
