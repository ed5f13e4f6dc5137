// `agentlog chat --mcp "<command>"` (the flag may repeat): the tools of MCP servers spawned over
// stdio, added to the chat's tools; their stderr is not shown (it would garble the chat). If one
// server fails to start, the others are closed again and the error says which command failed.
import { AgentError } from '../core/errors.js'
import { mcpTools, parseCommandLine } from '../mcp/node.js'
import type { Tool } from '../agent/tools.js'

export const mcpChatTools = async (commands: string[]): Promise<Tool[]> => {
  const opened = await Promise.allSettled(commands.map((line) => mcpTools({ ...parseCommandLine(line), stderr: 'ignore' })))
  const failed = opened.findIndex((o) => o.status === 'rejected')
  if (failed < 0) return opened.flatMap((o) => (o.status === 'fulfilled' ? o.value : []))
  await Promise.all(opened.map((o) => (o.status === 'fulfilled' ? o.value[0]?.close?.() : undefined)))
  const reason = (opened[failed] as PromiseRejectedResult).reason as Error
  throw new AgentError(reason instanceof AgentError ? reason.code : 'MCP_CONNECTION', `--mcp "${commands[failed]}": ${reason.message}`)
}
