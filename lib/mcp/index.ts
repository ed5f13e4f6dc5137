// `agentlog/mcp`: the tools of an MCP server over Streamable HTTP, or of a client the caller has
// already connected, as agentlog tools. Spawning a server over stdio is Node-only: `mcpTools` of
// `agentlog/node` takes a command too. The SDK (@modelcontextprotocol/sdk 1.x) is an optional peer.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { Tool } from '../agent/tools.js'
import { sessionOf } from './session.js'
import { toolsOfSession, type McpToolsOptions } from './tools.js'

export type { McpToolsOptions } from './tools.js'
export { toToolResult } from './content.js'

/** A Streamable HTTP endpoint (with headers, e.g. authorization), or a connected SDK client. */
export type McpConnection = string | URL | { url: string | URL; headers?: Record<string, string> } | Client

export const mcpTools = (connection: McpConnection, options?: McpToolsOptions): Promise<Tool[]> =>
  toolsOfSession(sessionOf(connection, 'mcpTools'), options)
