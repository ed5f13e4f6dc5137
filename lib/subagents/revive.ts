// Resuming a tree whose agents were restored from their logs (another process, a restart): the
// parent's log says which call waits for which child (the call's REQUIRE_EXTERNAL_EXECUTION
// `metadata.child_session_id`); the agent tool that ran it reopens the child from its log (the
// tool's `log` option), links it and watches its parked call again, so answering, stopping or
// interrupting the tree works as before the restart. Nothing here is state: the logs say it all.
import type { AgentEvent } from '../events.js'
import type { Tool } from '../tools.js'
import { childOfCall, type TreeMember } from './links.js'

/** What reviving reads of an agent (an `Agent`; structural, so this module imports no agent). */
export type RevivableAgent = TreeMember & { readonly log: readonly AgentEvent[] }

/** Reopens a parked child of `parent` for the call `tool_call_id` of reply `reply_id`; the agent tool's own. */
export type Reviver<A extends RevivableAgent> = (parent: A, call: { reply_id: string; tool_call_id: string; child_session_id: string }) => A | null

const revivers = new WeakMap<Tool, Reviver<RevivableAgent>>()

export const registerReviver = <A extends RevivableAgent>(tool: Tool, revive: Reviver<A>): void => {
  revivers.set(tool, revive as unknown as Reviver<RevivableAgent>)
}

/**
 * Reopens every parked sub-agent of `agent`'s paused reply that no live child runs (its tool can
 * reopen it), and theirs in turn. Reads the reply's events only, from its end back to its start.
 */
export const reviveParked = <A extends RevivableAgent>(agent: A, tools: ReadonlyMap<string, Tool>, reviveChild: (child: A) => void): void => {
  const { status, reply_id, waiting_for } = agent.state
  if (status !== 'paused' || !reply_id) return
  for (const call of waiting_for) {
    if (call.state !== 'submitted') continue
    const live = childOfCall(agent, reply_id, call.id)
    if (live) continue
    const tool = tools.get(call.name)
    const revive = tool && (revivers.get(tool) as Reviver<A> | undefined)
    const child_session_id = revive && childSessionOf(agent, reply_id, call.id)
    const child = revive && child_session_id ? revive(agent, { reply_id, tool_call_id: call.id, child_session_id }) : null
    if (child) reviveChild(child)
  }
}

/** The child session the call's REQUIRE_EXTERNAL_EXECUTION names, searched back to the reply's start. */
const childSessionOf = (agent: RevivableAgent, reply_id: string, tool_call_id: string): string | null => {
  const log = agent.log
  for (let i = log.length - 1; i >= 0; i--) {
    const event = log[i]
    if (event.type === 'REPLY_START' && event.reply_id === reply_id) return null
    if (event.type === 'REQUIRE_EXTERNAL_EXECUTION' && event.tool_calls.some((c) => c.id === tool_call_id)) {
      const id = event.metadata.child_session_id
      return typeof id === 'string' ? id : null
    }
  }
  return null
}
