// The tools of an MCP server as agentlog tools: listed once (every page), filtered by `include` /
// `exclude`, named `prefix + name` (made safe for providers), their JSON Schema input validated
// before each call (defineTool), read-only tools concurrency-safe. A call passes the reply's
// AbortSignal to the SDK, which sends the server notifications/cancelled; the reply does not wait
// for a server that ignores it. Every tool carries the session's `close()`, which the agent calls once.
import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js'
import { checkKnownKeys, optionKeys } from '../core/strictOptions.js'
import { AgentError } from '../core/errors.js'
import { defineTool, type Permission, type Tool } from '../agent/tools.js'
import { toToolResult } from './content.js'
import type { McpSession } from './session.js'

export interface McpToolsOptions {
  /** Only these tools (server names). */
  include?: string[]
  /** Not these tools (server names). */
  exclude?: string[]
  /** The permission of every tool: 'allow' (default), 'ask', 'deny', or a function of (input, state). */
  permission?: Permission | ((input: Record<string, unknown>, state: unknown) => Permission)
  /** Put before every tool name, e.g. 'github_' (names keep to [a-zA-Z0-9_-], 64 characters). */
  prefix?: string
  /** Per call, in milliseconds (default: the SDK's, 60 s). */
  timeoutMs?: number
}

export const toolsOfSession = async (session: McpSession, options: McpToolsOptions = {}): Promise<Tool[]> => {
  checkOptions(options)
  const { include, exclude = [], permission, prefix = '', timeoutMs } = options
  let listed: McpTool[]
  try {
    listed = await listAll(session)
  } catch (error) {
    await session.close()
    if (error instanceof AgentError) throw error
    throw new AgentError('MCP_CONNECTION', `Could not list the MCP server's tools: ${(error as Error).message}. Check the command or URL, and that the server starts on its own.`)
  }
  const names = listed.map((t) => t.name)
  const missing = include?.filter((name) => !names.includes(name)) ?? []
  if (missing.length) {
    await session.close()
    throw new AgentError('INVALID_OPTION', `mcpTools: include names ${missing.map((n) => `"${n}"`).join(', ')}, which the server does not have; it has ${names.join(', ') || 'no tools'}.`)
  }
  const chosen = listed.filter((t) => (!include || include.includes(t.name)) && !exclude.includes(t.name))
  const seen = new Map<string, string>()
  return chosen.map((mcp) => {
    const name = toolName(prefix, mcp.name)
    if (seen.has(name)) throw new AgentError('INVALID_OPTION', `mcpTools: the server's tools "${seen.get(name)}" and "${mcp.name}" both become "${name}"; exclude one of them.`)
    seen.set(name, mcp.name)
    return defineTool({
      name,
      description: mcp.description ?? mcp.title ?? mcp.name,
      input: mcp.inputSchema as Record<string, unknown>,
      concurrencySafe: mcp.annotations?.readOnlyHint === true,
      ...(permission !== undefined ? { permission } : {}),
      execute: async (args, { signal, tool_call_id }) => {
        const client = await session.client()
        const result = await client.callTool({ name: mcp.name, arguments: args }, undefined, { signal, ...(timeoutMs ? { timeout: timeoutMs } : {}) })
        return toToolResult(result as Parameters<typeof toToolResult>[0], tool_call_id)
      },
      close: session.close,
    })
  })
}

const listAll = async (session: McpSession): Promise<McpTool[]> => {
  const client = await session.client()
  const tools: McpTool[] = []
  let cursor: string | undefined
  do {
    const page = await client.listTools(cursor ? { cursor } : undefined)
    tools.push(...page.tools)
    cursor = page.nextCursor
  } while (cursor)
  return tools
}

const toolName = (prefix: string, name: string): string => `${prefix}${name}`.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64)

const checkOptions = (options: McpToolsOptions): void => {
  checkKnownKeys('mcpTools', options, optionKeys<McpToolsOptions>({ include: true, exclude: true, permission: true, prefix: true, timeoutMs: true }))
  const { include, exclude, permission, prefix, timeoutMs } = options
  const names = (v: unknown) => v === undefined || (Array.isArray(v) && v.every((n) => typeof n === 'string'))
  if (!names(include) || !names(exclude)) throw new AgentError('INVALID_OPTION', 'mcpTools: include and exclude must be arrays of tool names.')
  if (permission !== undefined && typeof permission !== 'function' && !['allow', 'ask', 'deny'].includes(permission))
    throw new AgentError('INVALID_OPTION', `mcpTools: permission must be 'allow', 'ask', 'deny' or a function; received ${JSON.stringify(permission)}.`)
  if (prefix !== undefined && (typeof prefix !== 'string' || !/^[a-zA-Z0-9_-]*$/.test(prefix))) throw new AgentError('INVALID_OPTION', `mcpTools: prefix must use only letters, digits, _ and -; received ${JSON.stringify(prefix)}.`)
  if (timeoutMs !== undefined && !(Number.isInteger(timeoutMs) && timeoutMs > 0)) throw new AgentError('INVALID_OPTION', `mcpTools: timeoutMs must be a whole number of milliseconds above 0; received ${JSON.stringify(timeoutMs)}.`)
}
