// Resuming a tree whose agents were restored from their logs (another process, a restart): the
// parent's log says which call waits for which child (the call's REQUIRE_EXTERNAL_EXECUTION
// `metadata.child_session_id`); the agent tool that ran it reopens the child from its log (the
// tool's `log` option), links it and watches its parked call again, so answering, stopping or
// interrupting the tree works as before the restart. Nothing here is state: the logs say it all.
import type { AgentEvent } from '../core/events.js'
import type { Tool } from '../agent/tools.js'
import { findToolCall } from '../../reducers/blocks.js'
import { childOfCall, type TreeMember } from './links.js'

/** What reviving reads of an agent (an `Agent`; structural, so this module imports no agent). */
export type RevivableAgent = TreeMember & { readonly log: readonly AgentEvent[] }

/**
 * Reopens a child of `parent` for one of its calls; the agent tool's own. `cut`: the parent's reply
 * was cut by a crash (the child's log, cut too, is closed by reopening it, before the parent's).
 */
export type Reviver<A extends RevivableAgent> = (parent: A, call: { reply_id: string; tool_call_id: string; child_session_id: string; input: string; cut: boolean }) => A | null

const revivers = new WeakMap<Tool, Reviver<RevivableAgent>>()

export const registerReviver = <A extends RevivableAgent>(tool: Tool, revive: Reviver<A>): void => {
  revivers.set(tool, revive as unknown as Reviver<RevivableAgent>)
}

/** The reviver registered for `tool` (a tool built on agentTool wraps it), if any. */
export const reviverOf = <A extends RevivableAgent>(tool: Tool): Reviver<A> | undefined => revivers.get(tool) as Reviver<A> | undefined

/**
 * Reopens the sub-agents of `agent`'s restored reply that no live child runs (their tool can reopen
 * them), and theirs in turn: the parked ones of a paused reply, every open one of a reply a crash
 * cut (`running` while `restoring`: reopening closes their logs, deepest first, before the reply's own close).
 * Reads the reply's events only, from its end back to its start.
 */
export const reviveSubagents = <A extends RevivableAgent>(agent: A, tools: ReadonlyMap<string, Tool>, { restoring }: { restoring: boolean }, reviveChild: (child: A) => void): void => {
  const { status, reply_id, reply_msg } = agent.state
  // A running reply is a cut one only while the agent is being restored: later, its calls are live.
  if (status === 'idle' || (status === 'running' && !restoring) || !reply_id || !reply_msg) return
  // Only an agent with agent tools has sub-agents to reopen (the others' logs are not read).
  if (![...tools.values()].some((tool) => revivers.has(tool))) return
  for (const { tool_call_id, child_session_id } of openSubagentCalls(agent, reply_id)) {
    const call = findToolCall(reply_msg, tool_call_id)
    if (!call || childOfCall(agent, reply_id, tool_call_id)) continue
    if (status === 'paused' && call.state !== 'submitted') continue
    const tool = tools.get(call.name)
    const revive = tool && (revivers.get(tool) as Reviver<A> | undefined)
    const child = revive ? revive(agent, { reply_id, tool_call_id, child_session_id, input: call.input, cut: status === 'running' }) : null
    if (child) reviveChild(child)
  }
}

/** The calls of reply `reply_id` that started a sub-agent (TOOL_RESULT_START metadata.child_session_id) and have no result yet. */
const openSubagentCalls = (agent: RevivableAgent, reply_id: string): { tool_call_id: string; child_session_id: string }[] => {
  let log: readonly AgentEvent[]
  try {
    log = agent.log
  } catch {
    return [] // opened from a snapshot inside the reply: its start is not loaded (not reopened; see the README)
  }
  const ended = new Set<string>()
  const open: { tool_call_id: string; child_session_id: string }[] = []
  for (let i = log.length - 1; i >= 0; i--) {
    const event = log[i]
    if (event.type === 'REPLY_START' && event.reply_id === reply_id) break
    if (event.type === 'TOOL_RESULT_END') ended.add(event.tool_call_id)
    const child_session_id = event.metadata.child_session_id
    if (event.type === 'TOOL_RESULT_START' && typeof child_session_id === 'string' && !ended.has(event.tool_call_id)) open.unshift({ tool_call_id: event.tool_call_id, child_session_id })
  }
  return open
}
