// The real server on 127.0.0.1 (ephemeral port) over a real hub and a directory store in a fresh
// temporary folder; helpers to read SSE over fetch and to collect a session's events.
import { mkdtempSync, rmSync } from 'node:fs'
import { request as httpRequestRaw, type IncomingHttpHeaders } from 'node:http'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createHub, createServer, type AgentEvent, type AgentOptions, type AgentState, type Hub, type ServerOptions } from '../../lib/index.js'
import { directoryStore, listen } from '../../lib/node.js'
import { readSse } from '../../lib/client/sse.js'

export type AgentFactory = (session_id: string) => Omit<AgentOptions, 'log' | 'session_id'>

export interface Running {
  url: string
  hub: Hub
  close(): Promise<void>
}

export const startServer = async (agent: AgentFactory, options: Omit<ServerOptions, 'hub'> = {}): Promise<Running & { dir: string }> => {
  const dir = mkdtempSync(join(tmpdir(), 'agentlog-server-'))
  const hub = createHub({ store: directoryStore(dir), agent })
  const listening = await listen(createServer({ hub, ...options }), { port: 0 })
  return {
    url: listening.url,
    hub,
    dir,
    async close() {
      await listening.close()
      await hub.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

export const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })

export const newSession = async (url: string): Promise<string> => ((await (await post(`${url}/sessions`, {})).json()) as { session_id: string }).session_id

/** Reads an SSE response to its end (or until `until` says stop), with each event's id. */
export const readAll = async (response: Response, until?: (event: AgentEvent, seq: number) => boolean) => {
  const out: { seq: number; event: AgentEvent }[] = []
  for await (const message of readSse(response)) {
    const entry = { seq: Number(message.id), event: message.data as AgentEvent }
    out.push(entry)
    if (until?.(entry.event, entry.seq)) break
  }
  return out
}

/** Every event of the session from seq 0, read from /events until the log holds `seq` events. */
export const eventsUpTo = async (url: string, session: string, seq: number) => {
  const response = await fetch(`${url}/sessions/${session}/events?from_seq=0`)
  return readAll(response, (_, s) => s >= seq)
}

/**
 * Sends `text` as is on a fresh TCP connection to the server of `url` and resolves with everything
 * received once the server closes the connection (or after `guardMs`: a connection left open is
 * ended then, and the caller sees what arrived). Reaches what fetch refuses to send (any Host,
 * TRACE, a body that lies about its length).
 */
export const rawExchange = (url: string, text: string | Buffer, guardMs = 5000): Promise<{ text: string; closedByServer: boolean }> =>
  new Promise((resolve) => {
    const { hostname, port } = new URL(url)
    const socket = connect(Number(port), hostname)
    const chunks: Buffer[] = []
    let closedByServer = true
    const guard = setTimeout(() => {
      closedByServer = false
      socket.destroy()
    }, guardMs)
    socket.on('data', (chunk) => chunks.push(chunk))
    socket.on('error', () => {})
    socket.on('close', () => {
      clearTimeout(guard)
      resolve({ text: Buffer.concat(chunks).toString('latin1'), closedByServer })
    })
    socket.write(text)
  })

/** The status codes of the HTTP responses in a raw exchange, in order. */
export const statuses = (text: string): number[] => [...text.matchAll(/^HTTP\/1\.1 (\d{3})/gm)].map((m) => Number(m[1]))

/**
 * One request through node:http, which sends any Host, Origin or method as given (fetch rewrites
 * some). With `stopAfterHeaders`, an event stream resolves at its headers and the client leaves.
 */
export const httpRequest = (url: string, { method = 'GET', headers = {}, body, stopAfterHeaders = false }: { method?: string; headers?: Record<string, string>; body?: string | Buffer; stopAfterHeaders?: boolean } = {}) =>
  new Promise<{ status: number; headers: IncomingHttpHeaders; text: string }>((resolve, reject) => {
    // A body always goes with its length: node:http sends one of DELETE or OPTIONS without any framing otherwise.
    const framed = body === undefined ? headers : { 'content-length': String(Buffer.byteLength(body)), ...headers }
    const request = httpRequestRaw(url, { method, headers: framed, setHost: !Object.keys(headers).some((h) => h.toLowerCase() === 'host'), agent: false }, (response) => {
      if (stopAfterHeaders && response.headers['content-type']?.startsWith('text/event-stream')) {
        resolve({ status: response.statusCode!, headers: response.headers, text: '' })
        return void request.destroy()
      }
      const chunks: Buffer[] = []
      response.on('data', (chunk: Buffer) => chunks.push(chunk))
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, text: Buffer.concat(chunks).toString() }))
      response.on('error', reject)
    })
    request.on('error', reject)
    request.end(body)
  })

/** The state of session `id` served at `url` once its reply is over (polls GET /sessions/:id). */
export const untilIdle = async (url: string, id: string): Promise<AgentState> => {
  for (;;) {
    const state = (await (await fetch(`${url}/sessions/${id}`)).json()) as AgentState
    if (state.status === 'idle') return state
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}
