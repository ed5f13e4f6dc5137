// a2aAgent: a remote A2A agent as an agent tool. Each call runs a local proxy sub-agent (its own
// session, like agentTool's) whose model is the remote task (model.ts): the remote text streams into
// the call's result, a remote INPUT_REQUIRED parks the proxy and so the tree (approve / deny /
// submitResult answer it and the answer goes to the remote task), a Stop cancels the remote task
// without waiting. The remote context is named after the proxy's session and recorded in the call's
// TOOL_RESULT_START (`metadata.remote`), so the next owner after a crash cancels what it left running.
import { z } from 'zod'
import type { Agent } from '../agent/agent.js'
import { AgentError } from '../core/errors.js'
import type { ToolContext, Tool } from '../agent/tools.js'
import { agentTool } from '../subagents/agentTool.js'
import { registerReviver, reviverOf } from '../subagents/revive.js'
import { remoteModel, remoteTools, type RemoteTask } from './model.js'
import { cancelContext, cancelSoon, connect, type Remote } from './remote.js'

export interface A2aAgentOptions<I extends z.ZodType = z.ZodType> {
  /** The agent's base URL: its card is under /.well-known/agent-card.json. */
  url: string
  /** The tool's name (default: the card's name, made a valid tool name). */
  name?: string
  /** The tool's description (default: the card's). */
  description?: string
  /** Headers on every request to the remote agent (a bearer token). */
  headers?: Record<string, string>
  /** The call's input (default `{ task: string }`, sent as a text part; another input is sent as its JSON). */
  input?: I
}

const TaskInput = z.object({ task: z.string().describe('What the remote agent should do, with everything it needs to know') })

/** The remote context of a call: named after its proxy's session, so the parent's log alone finds it. */
export const remoteContextOf = (child_session_id: string): string => `a2a-${child_session_id}`.slice(0, 128)

const toolName = (name: string): string => name.replace(/[^a-zA-Z0-9_-]+/g, '_').replace(/^_+|_+$/g, '').slice(0, 64) || 'remote_agent'

export async function a2aAgent<I extends z.ZodType>(options: A2aAgentOptions<I> & { input: I }): Promise<Tool<I>>
export async function a2aAgent(options: A2aAgentOptions<typeof TaskInput>): Promise<Tool<typeof TaskInput>>
export async function a2aAgent(options: A2aAgentOptions): Promise<Tool> {
  const { url, headers = {} } = options ?? ({} as A2aAgentOptions)
  if (typeof url !== 'string' || !/^https?:\/\//.test(url)) throw new AgentError('INVALID_OPTION', `a2aAgent: url must be the remote agent's http(s) base URL; received ${JSON.stringify(url)}.`)
  if (typeof headers !== 'object' || headers === null || !Object.values(headers).every((v) => typeof v === 'string'))
    throw new AgentError('INVALID_OPTION', 'a2aAgent: headers must be an object of strings.')
  let remote: Remote
  try {
    remote = await connect(url.replace(/\/+$/, ''), headers)
  } catch (error) {
    throw new AgentError('INVALID_OPTION', `a2aAgent: could not read the agent card of ${url} (/.well-known/agent-card.json): ${error instanceof Error ? error.message : String(error)}`)
  }
  const name = options.name ?? toolName(remote.name)
  const description = options.description ?? (remote.description || `The remote A2A agent ${remote.name}.`)
  const proxy = (_input: unknown, context: ToolContext) => {
    const child = context.metadata?.child_session_id
    if (typeof child !== 'string') throw new AgentError('INVALID_OPTION', `a2aAgent("${name}"): the call has no child session id.`)
    const contextId = remoteContextOf(child)
    const task: RemoteTask = { id: null, open: false }
    if (context.agent) watchCall(context.agent as Agent, context, remote, contextId, task)
    return { name: remote.name || name, description, model: remoteModel(remote, contextId, task), tools: remoteTools() }
  }
  const tool: Tool = agentTool({
    name, description, agent: proxy, input: (options.input ?? TaskInput) as z.ZodType,
    startMetadata: (child) => ({ remote: { url, context_id: remoteContextOf(child) } }),
  })
  // A call a crash cut: the next owner cancels what it left running remotely, then closes it as agentTool does.
  const revive = reviverOf<Agent>(tool)
  registerReviver<Agent>(tool, (parent, call) => {
    if (call.cut) void cancelContext(remote, remoteContextOf(call.child_session_id)).catch(() => undefined)
    return revive ? revive(parent, call) : null
  })
  return tool
}

/** When the call closes as interrupted (a Stop while the proxy waits for an answer), the remote task is cancelled (without waiting). */
const watchCall = (parent: Agent, context: ToolContext, remote: Remote, contextId: string, task: RemoteTask) => {
  const subscription = parent.events$.subscribe((event) => {
    if (event.type !== 'TOOL_RESULT_END' || event.tool_call_id !== context.tool_call_id || event.reply_id !== context.reply_id) return
    queueMicrotask(() => subscription.unsubscribe())
    if (event.state !== 'interrupted') return
    if (task.id && task.open) cancelSoon(remote, task.id)
    else if (!task.id) void cancelContext(remote, contextId).catch(() => undefined)
    task.open = false
  })
}
