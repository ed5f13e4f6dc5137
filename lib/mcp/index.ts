// `agentlog/mcp`: the tools of an MCP server over Streamable HTTP, or of a client the caller has
// already connected, as agentlog tools. Spawning a server over stdio is Node-only: `mcpTools` of
// `agentlog/node` takes a command too. The SDK (@modelcontextprotocol/sdk 1.x) is an optional peer.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { AgentError, describe } from '../errors.js'
import type { Tool } from '../tools.js'
import { connectClient, importSdk, managedSession, userSession, type McpSession } from './session.js'
import { toolsOfSession, type McpToolsOptions } from './tools.js'

export type { McpToolsOptions } from './tools.js'
export { toToolResult } from './content.js'

/** A Streamable HTTP endpoint (with headers, e.g. authorization), or a connected SDK client. */
export type McpConnection = string | URL | { url: string | URL; headers?: Record<string, string> } | Client

export const mcpTools = (connection: McpConnection, options?: McpToolsOptions): Promise<Tool[]> =>
  toolsOfSession(sessionOf(connection, 'mcpTools'), options)

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
