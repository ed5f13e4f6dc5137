// `mcpTools` of `agentlog/node`: everything `agentlog/mcp` connects to, plus a server spawned as a
// child process over stdio (`{ command, args, env, cwd, stderr }`). The spawned server is
// restarted by the next call after it crashes, and shut down by `agent.close()`.
import { AgentError } from '../core/errors.js'
import type { Tool } from '../agent/tools.js'
import type { McpConnection } from './index.js'
import { connectClient, importSdk, managedSession, sessionOf } from './session.js'
import { toolsOfSession, type McpToolsOptions } from './tools.js'

export interface McpStdioServer {
  command: string
  args?: string[]
  /** Added to the SDK's safe default environment (PATH, HOME, ...). */
  env?: Record<string, string>
  cwd?: string
  /** The server's stderr: 'inherit' (default: shown in this terminal), 'ignore' or 'pipe'. */
  stderr?: 'inherit' | 'ignore' | 'pipe'
}

export const mcpTools = (connection: McpStdioServer | McpConnection, options?: McpToolsOptions): Promise<Tool[]> => {
  if (typeof connection !== 'object' || connection === null || !('command' in connection)) return toolsOfSession(sessionOf(connection, 'mcpTools (agentlog/node)'), options)
  const server = connection
  if (typeof server.command !== 'string' || !server.command) throw new AgentError('INVALID_OPTION', `mcpTools: command must be the program that starts the server, such as "npx"; received ${JSON.stringify(server.command)}.`)
  if (server.args !== undefined && !(Array.isArray(server.args) && server.args.every((a) => typeof a === 'string'))) throw new AgentError('INVALID_OPTION', 'mcpTools: args must be an array of strings.')
  return toolsOfSession(managedSession(async () => {
    const { StdioClientTransport } = await importSdk(() => import('@modelcontextprotocol/sdk/client/stdio.js'))
    return connectClient(new StdioClientTransport({ command: server.command, args: server.args, env: server.env, cwd: server.cwd, stderr: server.stderr ?? 'inherit' }))
  }), options)
}

/** Splits a command line such as `npx -y @modelcontextprotocol/server-everything` (quotes group words). */
export const parseCommandLine = (line: string): McpStdioServer => {
  const words = [...line.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3])
  if (!words.length) throw new AgentError('INVALID_OPTION', 'An MCP server command is empty; give the command that starts it, such as "npx -y @modelcontextprotocol/server-everything".')
  return { command: words[0], args: words.slice(1) }
}
