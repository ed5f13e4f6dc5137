// What a SessionHandle asks of a session's owner, as plain JSON (so it can travel to another
// process): an input, an interrupt, or an answer to a paused call. `toInput` builds the input event
// from the owner's state with the factories (the owner knows the paused reply and its calls);
// `execute` applies a command to a live agent and resolves, once committed, with the events it caused.
import type { Agent, AgentInput } from '../agent.js'
import { AgentError, describe } from '../errors.js'
import type { AgentEvent } from '../events.js'
import { ExternalExecutionResultEvent, ToolResultBlock, UserConfirmResultEvent, UserMsg } from '../factories.js'
import type { ToolCallBlock } from '../messages.js'
import type { AgentState } from '../../reducers/state.js'

export type Command =
  | { op: 'input'; input: AgentInput | string }
  | { op: 'interrupt' }
  | { op: 'approve'; tool_call_id: string; input?: Record<string, unknown> }
  | { op: 'deny'; tool_call_id: string; reason?: string }
  | { op: 'submit'; tool_call_id: string; result: unknown }

/** A string is a user message; anything else is checked by the agent's admission. */
export const toMessage = (input: AgentInput | string): AgentInput => (typeof input === 'string' ? UserMsg({ content: input }) : input)

const callOf = (state: AgentState, tool_call_id: unknown): ToolCallBlock => {
  if (typeof tool_call_id !== 'string' || tool_call_id === '') throw new AgentError('INVALID_INPUT', `tool_call_id must be the id of a paused tool call; received ${describe(tool_call_id)}.`)
  const call = state.waiting_for.find((c) => c.id === tool_call_id)
  if (call) return call
  const waiting = state.waiting_for.map((c) => `${c.id} (${c.name}, ${c.state})`).join(', ') || 'nothing'
  throw new AgentError('UNKNOWN_CALL', `Tool call ${tool_call_id} is not waiting for an answer in session ${state.session_id ?? '(new)'}; waiting for: ${waiting}.`)
}

/** The input event a command stands for, built from the owner's state (null for an interrupt). */
export const toInput = (state: AgentState, command: Command): AgentInput | null => {
  const reply_id = state.reply_id ?? ''
  switch (command.op) {
    case 'input':
      return toMessage(command.input)
    case 'interrupt':
      return null
    case 'approve': {
      const call = callOf(state, command.tool_call_id)
      const tool_call = command.input === undefined ? call : { ...call, input: JSON.stringify(command.input) }
      return UserConfirmResultEvent({ reply_id, confirm_results: [{ confirmed: true, tool_call }] })
    }
    case 'deny': {
      const event = UserConfirmResultEvent({ reply_id, confirm_results: [{ confirmed: false, tool_call: callOf(state, command.tool_call_id) }] })
      if (typeof command.reason === 'string') event.metadata.reason = command.reason
      return event
    }
    case 'submit': {
      const call = callOf(state, command.tool_call_id)
      const output = typeof command.result === 'string' ? command.result : JSON.stringify(command.result ?? null)
      return ExternalExecutionResultEvent({ reply_id, execution_results: [ToolResultBlock({ id: call.id, name: call.name, output })] })
    }
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
      agent.dispatch(toInput(agent.state, command)!)
    }
  } finally {
    subscription.unsubscribe()
  }
  await agent.flush()
  return caused
}
