// listen(): serves a fetch handler on Node's http (agentlog/node). Requests become web Requests
// whose signal aborts when the client goes away; response bodies are written with backpressure and
// cancelled when the socket closes. It binds to 127.0.0.1 by default and refuses a public host for
// a handler that requires no token. No request can take the process down (see `serve`), and a
// body the handler did not read closes its connection after the answer.
import { checkKnownKeys } from '../core/strictOptions.js'
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { Readable, type Duplex } from 'node:stream'
import { AgentError } from '../core/errors.js'
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

/** The host names that only this machine reaches. */
export const LOOPBACK = /^(127(\.\d{1,3}){3}|::1|localhost)$/

export const listen = async (handler: FetchHandler, options: ListenOptions = {}): Promise<Listening> => {
  checkKnownKeys('listen', options, ['port', 'host'])
  const { port = 8787, host = '127.0.0.1' } = options
  if (!LOOPBACK.test(host) && !handler.authenticated)
    throw new AgentError('INVALID_OPTION', `listen: host ${host} is reachable from other machines; create the server with a token (createServer({ hub, token })) or bind to 127.0.0.1.`)
  const server = createHttpServer((req, res) => serve(handler, req, res, host))
  server.on('clientError', answerUnparsable)
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

/** Methods a web Request cannot carry (the fetch standard forbids them): refused before the handler. */
const FORBIDDEN_METHODS = new Set(['CONNECT', 'TRACE', 'TRACK'])

/** What Node's parser refuses (a bad request line, an unknown method, headers too large): a coded 400 or 431, then close. */
const answerUnparsable = (error: Error & { code?: string }, socket: Duplex) => {
  if (!socket.writable || error.code === 'ECONNRESET') return void socket.destroy()
  const [status, reason, message] = error.code === 'HPE_HEADER_OVERFLOW'
    ? [431, 'Request Header Fields Too Large', 'The request headers are too large.']
    : [400, 'Bad Request', 'The request is not valid HTTP/1.1 (its request line, method or headers).']
  const body = JSON.stringify({ code: 'INVALID_INPUT', message })
  socket.end(`HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`)
}

/** A coded refusal written straight to the socket, for a request that never reaches the handler. */
const refuse = (res: ServerResponse, status: number, code: string, message: string) => {
  if (res.headersSent || res.destroyed) return void res.destroy()
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', connection: 'close' })
  res.end(JSON.stringify({ code, message }))
}

/**
 * Serves one request. Whatever goes wrong (a Host or method a web Request refuses, a handler or a
 * body that throws, a header Node will not write) stays inside this request: it is answered with
 * a coded status or its connection is closed; the process never sees the failure.
 */
const serve = (handler: FetchHandler, req: IncomingMessage, res: ServerResponse, host: string): void => {
  req.on('error', () => res.destroy())
  res.on('error', () => res.destroy())
  respond(handler, req, res, host).catch(() => res.destroy())
}

/** The request carries a body (a length above 0 or a chunked one). */
const carriesBody = (req: IncomingMessage) =>
  req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0')

/** A Host header: a name or IPv4 address, or a bracketed IPv6 address, with an optional port. */
const HOST = /^(?:[A-Za-z0-9_.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/

/**
 * The request's URL: its origin-form path on its Host, or an absolute-form target as given (whose
 * authority then replaces Host, as HTTP/1.1 says); null when either is malformed.
 */
const urlOf = (req: IncomingMessage, host: string): string | null => {
  const target = req.url ?? ''
  if (/^https?:\/\//i.test(target)) {
    try {
      const url = new URL(target)
      return HOST.test(url.host) ? `http://${url.host}${url.pathname}${url.search}` : null
    } catch {
      return null
    }
  }
  const given = req.headers.host ?? (host.includes(':') ? `[${host}]` : host)
  return HOST.test(given) && target.startsWith('/') ? `http://${given}${target}` : null
}

const toRequest = (req: IncomingMessage, host: string, signal: AbortSignal, hasBody: boolean): Request | null => {
  const url = urlOf(req, host)
  if (url === null) return null
  try {
    return new Request(url, {
      method: req.method,
      headers: Object.entries(req.headers).flatMap(([name, value]) => (Array.isArray(value) ? value.map((v): [string, string] => [name, v]) : value === undefined ? [] : [[name, value]])),
      signal,
      ...(hasBody ? { body: Readable.toWeb(req) as ReadableStream<Uint8Array>, duplex: 'half' } : {}),
    } as RequestInit)
  } catch {
    return null
  }
}

const respond = async (handler: FetchHandler, req: IncomingMessage, res: ServerResponse, host: string) => {
  const method = req.method ?? 'GET'
  if (FORBIDDEN_METHODS.has(method.toUpperCase())) return refuse(res, 405, 'NO_ROUTE', `This server does not answer ${method}; use GET, POST, DELETE or OPTIONS.`)
  const gone = new AbortController()
  res.once('close', () => gone.abort())
  const hasBody = method !== 'GET' && method !== 'HEAD' && carriesBody(req)
  const request = toRequest(req, host, gone.signal, hasBody)
  if (!request) return refuse(res, 400, 'INVALID_INPUT', 'The request line or its headers are malformed (the Host header must be a host name or address with an optional port).')
  let response: Response
  try {
    response = await handler(request)
  } catch {
    response = new Response(JSON.stringify({ code: 'INTERNAL', message: 'The server failed while handling the request.' }), { status: 500 })
  }
  const headers = Object.fromEntries(response.headers)
  // A body the handler did not read (refused as too large, or never needed) is not drained: the
  // connection closes after the answer, so the next request on it never meets its bytes.
  const unread = hasBody && !req.readableEnded
  if (unread) headers.connection = 'close'
  res.writeHead(response.status, headers)
  if (unread) res.once('finish', () => req.socket.destroySoon())
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
