// The page's calls that are not the agent's surface (that is `remoteAgent`): list, create, delete
// and fork sessions, and read a session's tools (their input schemas check edited arguments).
// Errors come back as the server's JSON `{ code, message }`, thrown as an ApiError with that message
// and the HTTP status (401: the token is missing or wrong).
import type { SessionInfo, Page } from '../lib/hub/types.js'
import type { WaitingCall } from '../lib/agent/text.js'

export interface ToolInfo {
  name: string
  description: string
  input_schema: Record<string, unknown>
  external: boolean
}

export class ApiError extends Error {
  constructor(message: string, readonly status: number) {
    super(message)
  }
}

export class Api {
  constructor(readonly base: string, readonly token?: string) {}

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = {}
    if (body !== undefined) headers['content-type'] = 'application/json'
    if (this.token) headers.authorization = `Bearer ${this.token}`
    const res = await fetch(this.base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
    const text = await res.text()
    let json: { message?: string } | null = null
    try {
      json = text ? JSON.parse(text) : null
    } catch {
      // not JSON (a proxy's error page): reported by status below
    }
    if (!res.ok) throw new ApiError(json?.message ?? `${method} ${path} failed with HTTP ${res.status}`, res.status)
    return json as T
  }

  sessions = (after?: string) => this.call<Page<SessionInfo>>('GET', `/sessions?limit=100${after ? `&after=${encodeURIComponent(after)}` : ''}`)
  /** The first `count` sessions (all of them when fewer), page by page; `more` when the server has others. */
  firstSessions = async (count: number): Promise<{ items: SessionInfo[]; more: boolean }> => {
    const items: SessionInfo[] = []
    let after: string | undefined
    do {
      const page = await this.sessions(after)
      items.push(...page.items)
      after = page.next
    } while (after !== undefined && items.length < count)
    return { items, more: after !== undefined }
  }
  create = () => this.call<{ session_id: string }>('POST', '/sessions', {})
  remove = (id: string) => this.call<unknown>('DELETE', `/sessions/${encodeURIComponent(id)}`)
  fork = (id: string, seq: number) => this.call<{ session_id: string }>('POST', `/sessions/${encodeURIComponent(id)}/fork`, { seq })
  /** The calls the session's tree waits for (its own and its sub-agents'), each with the session it waits in. */
  waiting = (id: string) => this.call<{ waiting_for: WaitingCall[] }>('GET', `/sessions/${encodeURIComponent(id)}/waiting`).then((r) => r.waiting_for)
  /** An approve / deny / submit shorthand for the session's /input (a sub-agent's call is answered where it waits). */
  input = (id: string, body: Record<string, unknown>) => this.call<unknown>('POST', `/sessions/${encodeURIComponent(id)}/input`, body)
  tools = (id: string) => this.call<{ tools: ToolInfo[] }>('GET', `/sessions/${encodeURIComponent(id)}/tools`).then((r) => r.tools)
}
