// The HTTP requests of one remoteAgent to its session's routes: JSON bodies, the bearer token, the
// server's coded refusals as AgentErrors, and every request aborted once the client has ended.
import { AgentError, describe } from '../core/errors.js'
import { responseError } from './sse.js'

export interface TransportOptions {
  /** The session's base URL (…/sessions/ID). */
  base: string
  token?: string
  fetch: typeof globalThis.fetch
  /** Aborted when the client ends: the default signal of every request. */
  ending: AbortSignal
  /** Why the client ended, or null: what a request that fails then rejects with. */
  failure: () => AgentError | null
}

export class Transport {
  constructor(private readonly options: TransportOptions) {}

  /** A request whose answer is JSON: the parsed body. */
  async call(method: string, path: string, body?: unknown): Promise<unknown> {
    const response = await this.send(method, path, body)
    try {
      return await response.json()
    } catch (error) {
      throw this.options.failure() ?? new AgentError('INTERNAL', `The server's answer to ${method} ${path || '/'} is not JSON: ${describe(error)}.`)
    }
  }

  /** A request; a refusal (not 2xx) rejects with the server's coded error. */
  async send(method: string, path: string, body?: unknown, signal: AbortSignal = this.options.ending): Promise<Response> {
    const failure = this.options.failure()
    if (failure) throw failure
    const headers: Record<string, string> = { accept: 'application/json, text/event-stream' }
    if (body !== undefined) headers['content-type'] = 'application/json'
    if (this.options.token) headers.authorization = `Bearer ${this.options.token}`
    let response: Response
    try {
      response = await this.options.fetch(`${this.options.base}${path}`, { method, headers, signal, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) })
    } catch (error) {
      throw this.options.failure() ?? (signal.aborted ? error : unreachable(this.options.base, error))
    }
    if (!response.ok) throw await responseError(response)
    return response
  }
}

/** A request that reached no server (refused, no such host, a dropped connection): one line naming the server. */
const unreachable = (base: string, error: unknown): AgentError => {
  const cause = (error as { cause?: { code?: unknown } } | null)?.cause?.code
  const server = base.replace(/\/sessions\/[^/]*$/, '')
  return new AgentError('UNREACHABLE', `No agentlog server answers at ${server}${typeof cause === 'string' ? ` (${cause})` : ''}: is it running? Start one with npx agentlog serve, or check the URL.`)
}
