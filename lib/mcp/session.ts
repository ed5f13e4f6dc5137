// One MCP server connection shared by the tools made from it: connected on first use and again on
// the next call after the server crashed or disconnected (the SDK's `onclose`; the call that was
// running gets the SDK's connection-closed error, which becomes its `error` result). `close()`
// shuts it down (a spawned server exits); a later call connects anew, so tools shared by several
// agents (a hub's sessions) keep working after one of them closes. A client the caller connected
// is used as it is: never reconnected or closed here. `sessionOf` picks the kind for a connection.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { AgentError, describe } from '../core/errors.js'

export interface McpSession {
  client(): Promise<Client>
  close(): Promise<void>
}

export const managedSession = (connect: () => Promise<Client>): McpSession => {
  let current: Promise<Client> | null = null
  return {
    client() {
      if (current) return current
      const attempt: Promise<Client> = connect().then((client) => {
        const previous = client.onclose
        client.onclose = () => {
          previous?.()
          if (current === attempt) current = null
        }
        return client
      })
      attempt.catch(() => {
        if (current === attempt) current = null
      })
      current = attempt
      return attempt
    },
    async close() {
      const pending = current
      current = null
      const client = await pending?.catch(() => null)
      await client?.close()
    },
  }
}

export const userSession = (client: Client): McpSession => ({
  client: () => Promise.resolve(client),
  close: async () => undefined,
})

/** A new SDK client connected over `transport`; the SDK is loaded only now (an optional peer dependency). */
export const connectClient = async (transport: Parameters<Client['connect']>[0]): Promise<Client> => {
  const { Client } = await importSdk(() => import('@modelcontextprotocol/sdk/client/index.js'))
  const client = new Client({ name: 'agentlog', version: '0.1.0' }, { capabilities: {} })
  await client.connect(transport)
  return client
}

export const importSdk = async <T>(load: () => Promise<T>): Promise<T> => {
  try {
    return await load()
  } catch (error) {
    throw new AgentError('MISSING_DEPENDENCY', `MCP tools need the official SDK: npm install @modelcontextprotocol/sdk (${(error as Error).message}).`)
  }
}

/** The session for a Streamable HTTP endpoint (a URL, or `{ url, headers }`) or a connected client. */
export const sessionOf = (connection: unknown, where: string): McpSession => {
  if (isClient(connection)) return userSession(connection)
  const http = typeof connection === 'string' || connection instanceof URL ? { url: connection } : connection
  if (typeof http === 'object' && http !== null && 'url' in http) {
    const { url, headers } = http as { url: unknown; headers?: Record<string, string> }
    let parsed: URL
    try {
      parsed = new URL(String(url))
    } catch {
      throw new AgentError('INVALID_OPTION', `${where}: ${describe(url)} is not a URL; give the server's Streamable HTTP endpoint such as "http://127.0.0.1:3000/mcp".`)
    }
    return managedSession(async () => {
      const { StreamableHTTPClientTransport } = await importSdk(() => import('@modelcontextprotocol/sdk/client/streamableHttp.js'))
      return connectClient(new StreamableHTTPClientTransport(parsed, headers ? { requestInit: { headers } } : undefined))
    })
  }
  throw new AgentError('INVALID_OPTION', `${where}: expected a URL, { url, headers }, a connected MCP client${where.includes('node') ? ' or { command, args, env }' : ''}; received ${describe(connection)}.`)
}

const isClient = (value: unknown): value is Client =>
  typeof value === 'object' && value !== null && typeof (value as Client).callTool === 'function' && typeof (value as Client).listTools === 'function'
