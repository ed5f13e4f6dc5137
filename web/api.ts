// The page's calls that are not the agent's surface (that is `remoteAgent`): list, create, delete
// and fork sessions, and read a session's tools (their input schemas check edited arguments).
// Errors come back as the server's JSON `{ code, message }`, thrown as an Error with that message.
import type { SessionInfo, Page } from '../lib/hub/types.js'

export interface ToolInfo {
  name: string
  description: string
  input_schema: Record<string, unknown>
  external: boolean
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
    if (!res.ok) throw new Error(json?.message ?? `${method} ${path} failed with HTTP ${res.status}`)
    return json as T
  }

  sessions = (after?: string) => this.call<Page<SessionInfo>>('GET', `/sessions?limit=100${after ? `&after=${encodeURIComponent(after)}` : ''}`)
  create = () => this.call<{ session_id: string }>('POST', '/sessions', {})
  remove = (id: string) => this.call<unknown>('DELETE', `/sessions/${encodeURIComponent(id)}`)
  fork = (id: string, seq: number) => this.call<{ session_id: string }>('POST', `/sessions/${encodeURIComponent(id)}/fork`, { seq })
  tools = (id: string) => this.call<{ tools: ToolInfo[] }>('GET', `/sessions/${encodeURIComponent(id)}/tools`).then((r) => r.tools)
}
