// What a SessionHandle asks of a session's owner, as plain JSON (so it can travel to another
// process): an input, an interrupt, or an answer to a paused call. `toInput` builds the input event
// from the owner's state (lib/inputs.ts) (the owner knows the paused reply and its calls);
// `execute` applies a command to a live agent and resolves, once committed, with the events it caused.
import type { Agent, AgentInput } from '../agent.js'
import { AgentError, describe } from '../errors.js'
import type { AgentEvent } from '../events.js'
import { UserMsg } from '../factories.js'
import { approveEvent, denyEvent, submitResultEvent, type ExternalResult } from '../inputs.js'
import type { CallerToolSpec } from '../tools.js'
import type { AgentState } from '../../reducers/state.js'

export type Command =
  | { op: 'input'; input: AgentInput | string; externalTools?: CallerToolSpec[] }
  | { op: 'interrupt' }
  | { op: 'approve'; tool_call_id: string; input?: Record<string, unknown> }
  | { op: 'deny'; tool_call_id: string; reason?: string }
  | { op: 'submit'; tool_call_id: string; result: unknown }

/** A string is a user message; anything else is checked by the agent's admission. */
export const toMessage = (input: AgentInput | string): AgentInput => (typeof input === 'string' ? UserMsg({ content: input }) : input)

/** An external call's result as a handle receives it: `{ output, state? }`, a string, or any JSON value (sent as its JSON). */
const asExternalResult = (result: unknown): ExternalResult =>
  typeof result === 'object' && result !== null && 'output' in result ? (result as ExternalResult)
    : typeof result === 'string' ? result : JSON.stringify(result ?? null)

/** The input event a command stands for, built from the owner's state (null for an interrupt). */
export const toInput = (state: AgentState, command: Command): AgentInput | null => {
  switch (command.op) {
    case 'input':
      return toMessage(command.input)
    case 'interrupt':
      return null
    case 'approve':
      return approveEvent(state, command.tool_call_id, { input: command.input })
    case 'deny':
      return denyEvent(state, command.tool_call_id, typeof command.reason === 'string' ? command.reason : undefined)
    case 'submit':
      return submitResultEvent(state, command.tool_call_id, asExternalResult(command.result))
    default:
      throw new AgentError('INVALID_INPUT', `Unknown session command ${describe((command as { op?: unknown }).op)}.`)
  }
}

/** Waits until the reply `reply_id` is no longer running or paused (its REPLY_END is in the state). */
const replyEnded = (agent: Agent, reply_id: string | null) => new Promise<void>((resolve) => {
  const subscription = agent.state$.subscribe((state) => {
    if (state.reply_id !== reply_id || state.status === 'idle') {
      queueMicrotask(() => subscription.unsubscribe())
      resolve()
    }
  })
})

/**
 * Applies `command` to `agent`; resolves with the events it caused (those appended while it was
 * applied; for an interrupt, up to the reply's REPLY_END) once they are committed.
 */
export const execute = async (agent: Agent, command: Command): Promise<AgentEvent[]> => {
  const caused: AgentEvent[] = []
  const subscription = agent.events$.subscribe((event) => caused.push(event))
  try {
    if (command.op === 'interrupt') {
      const { reply_id, status } = agent.state
      await agent.interrupt()
      if (status !== 'idle') await replyEnded(agent, reply_id)
    } else {
      agent.dispatch(toInput(agent.state, command)!, command.op === 'input' ? { externalTools: command.externalTools } : {})
    }
  } finally {
    subscription.unsubscribe()
  }
  await agent.flush()
  return caused
}
