// What a SessionHandle asks of a session's owner, as plain JSON (so it can travel to another
// process): an input, an interrupt (now or after the step, keeping the queue or not), a steer, a
// queued message or one taken back, or an answer to a paused call. `toInput` builds the input event
// from the owner's state (lib/agent/inputs.ts) (the owner knows the paused reply and its calls);
// `execute` applies a command to a live agent and resolves, once committed, with the events it caused;
// a routed command's input event carries its request's id, so `appliedBefore` can find what a dead
// owner already applied (an interrupt is not tagged: applied twice, the second finds nothing to stop).
import type { Agent, AgentInput } from '../agent/agent.js'
import { AgentError, describe } from '../core/errors.js'
import type { AgentEvent } from '../core/events.js'
import type { LogStore } from '../core/log.js'
import { UserMsg } from '../core/factories.js'
import { approveEvent, denyEvent, submitResultEvent, type ExternalResult } from '../agent/inputs.js'
import type { CallerToolSpec } from '../agent/tools.js'
import type { AgentState } from '../../reducers/state.js'
import { ownerOfCall } from '../subagents/tree.js'

export type Command =
  | { op: 'input'; input: AgentInput | string; externalTools?: CallerToolSpec[]; metadata?: Record<string, unknown>; whilePaused?: 'refuse' | 'interrupt' | 'queue' }
  | { op: 'interrupt'; when?: 'now' | 'step'; keepQueue?: boolean }
  | { op: 'steer' | 'queue'; input: AgentInput | string }
  | { op: 'unqueue'; id: string }
  | { op: 'approve'; tool_call_id: string; session_id?: string; input?: Record<string, unknown> }
  | { op: 'deny'; tool_call_id: string; session_id?: string; reason?: string }
  | { op: 'submit'; tool_call_id: string; session_id?: string; result: unknown }

/** A string is a user message; anything else is checked by the agent's admission. */
export const toMessage = (input: AgentInput | string): AgentInput => (typeof input === 'string' ? UserMsg({ content: input }) : input)

/** An external call's result as a handle receives it: `{ output, state? }`, an answer to a question (`{ choice | choices | text }`), a string, or any JSON value (sent as its JSON). */
/** A result as a client sends it (any JSON value) as the agent takes it: a string, `{ output, state? }`, or an answer to an ask_user question as given; any other value as its JSON. */
export const asExternalResult = (result: unknown): ExternalResult =>
  typeof result === 'object' && result !== null && ('output' in result || 'choice' in result || 'choices' in result || 'text' in result) ? (result as ExternalResult)
    : typeof result === 'string' ? result : JSON.stringify(result ?? null)

/** The input event a command stands for, built from the owner's state (null for an interrupt). */
export const toInput = (state: AgentState, command: Command): AgentInput | null => {
  switch (command.op) {
    case 'input':
      return toMessage(command.input)
    case 'interrupt':
    case 'steer':
    case 'queue':
    case 'unqueue':
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

/** A command routed from another process: its request's id, and the session's last committed event when it was made (null: unknown). */
export interface RoutedRequest {
  id: string
  afterSeq: number | null
}

/**
 * The events `request` caused, when the session's log already holds its input event (an owner
 * applied it and died before answering): that event and, after a message, the REPLY_START it
 * caused; once committed. Null when it was not applied. Reads only the events after its position.
 */
export const appliedBefore = async (session: { agent: Agent; log: LogStore }, request: RoutedRequest, readAll: () => Promise<AgentEvent[]>): Promise<AgentEvent[] | null> => {
  const { afterSeq } = request
  if (afterSeq === null || session.agent.state.seq <= afterSeq) return null
  let after: AgentEvent[]
  try {
    after = session.log.read({ fromSeq: afterSeq })
  } catch {
    after = (await readAll()).slice(afterSeq) // opened from a snapshot taken after the request
  }
  const at = after.findIndex((event) => event.metadata.request_id === request.id)
  if (at < 0) return null
  const caused = after.slice(at, after[at].type === 'USER_MESSAGE' && after[at + 1]?.type === 'REPLY_START' ? at + 2 : at + 1)
  await session.agent.flush()
  return caused
}

/**
 * Applies `command` to `agent`; resolves with the events it caused (those appended while it was
 * applied; for an interrupt, up to the reply's REPLY_END) once they are committed. `request_id`
 * (a routed command's) is recorded on the input event.
 */
export const execute = async (agent: Agent, command: Command, request_id?: string): Promise<AgentEvent[]> => {
  const caused: AgentEvent[] = []
  const subscription = agent.events$.subscribe((event) => caused.push(event))
  try {
    const tagged = request_id === undefined ? {} : { metadata: { request_id } }
    if (command.op === 'interrupt') {
      const { reply_id, status } = agent.state
      await agent.interrupt({ when: command.when, keepQueue: command.keepQueue })
      if (status !== 'idle') await replyEnded(agent, reply_id)
    } else if (command.op === 'steer') await agent.steer(toMessage(command.input), tagged)
    else if (command.op === 'queue') await agent.queue(toMessage(command.input), tagged)
    else if (command.op === 'unqueue') await agent.unqueue(command.id, tagged)
    else {
      const caller: { metadata?: Record<string, unknown>; externalTools?: CallerToolSpec[]; whilePaused?: 'refuse' | 'interrupt' | 'queue' } = command.op === 'input' ? command : {}
      const metadata = { ...caller.metadata, ...(request_id === undefined ? {} : { request_id }) }
      // An answer to a sub-agent's call is built from the state of the agent it waits in (in this process).
      // A call named with its session (two sub-agents may both wait on `call_0`) is answered in that session.
      const mine = 'tool_call_id' in command && (command.session_id ?? agent.session_id) === agent.session_id && agent.state.waiting_for.some((c) => c.id === command.tool_call_id)
      const owner = 'tool_call_id' in command && !mine ? ownerOfCall(agent, { id: command.tool_call_id, ...(command.session_id !== undefined && { session_id: command.session_id }) }) : undefined
      agent.dispatch(toInput((owner ?? agent).state, command)!, { externalTools: caller.externalTools, metadata, whilePaused: caller.whilePaused })
    }
  } finally {
    subscription.unsubscribe()
  }
  await agent.flush()
  return caused
}
