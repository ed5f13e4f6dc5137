// Answers to a tree's waiting calls, the same on every surface (Agent, SessionHandle, remoteAgent,
// POST /input and /replies): a call is named by a CallRef (its id, or a call of `waiting_for` with
// its `session_id`: call ids are unique within one reply only, so two sub-agents may both wait on
// `call_0`), and the answer's input event is built from the state of the session the call waits in.
import { approveEvent, denyEvent, submitResultEvent, type ExternalResult } from '../agent/inputs.js'
import type { AgentInput } from '../agent/agent.js'
import { AgentError, describe } from '../core/errors.js'
import type { CallRef } from '../subagents/tree.js'
import type { WaitingCall } from '../agent/text.js'
import type { AgentState } from '../../reducers/state.js'
import { asExternalResult } from './commands.js'

/** An answer to one waiting call of a session's tree. */
export type Answer =
  | { approve: CallRef; input?: Record<string, unknown> }
  | { deny: CallRef; reason?: string }
  | { submit: CallRef; result: unknown }

/** True for `{ approve }`, `{ deny }` or `{ submit }` (an answer rather than a message or an input event). */
export const isAnswer = (value: unknown): value is Answer =>
  typeof value === 'object' && value !== null && !('type' in value) && !('role' in value) && ('approve' in value || 'deny' in value || 'submit' in value)

/** The call an answer names, checked: `{ id, session_id? }`. */
export const callOf = (ref: unknown): { id: string; session_id?: string } => {
  if (typeof ref === 'string' && ref) return { id: ref }
  const object = ref as { id?: unknown; tool_call_id?: unknown; session_id?: unknown } | null
  const id = typeof object?.id === 'string' ? object.id : object?.tool_call_id
  if (typeof id !== 'string' || !id || (object!.session_id !== undefined && typeof object!.session_id !== 'string'))
    throw new AgentError('INVALID_INPUT', `A call is named by its id or by a call of waiting_for ({ id, session_id }); received ${describe(ref)}.`)
  return { id, ...(typeof object!.session_id === 'string' && { session_id: object!.session_id }) }
}

/**
 * The session the call `ref` waits in, from what the tree of `session_id` waits for: INVALID_INPUT
 * if its id waits in several sessions; when it waits nowhere, `session_id` itself, whose state then
 * says why it cannot be answered, as a local agent's does (UNKNOWN_CALL for another session named).
 */
export const whereWaiting = (waiting: readonly WaitingCall[], session_id: string, ref: CallRef): { id: string; session_id: string } => {
  const { id, session_id: where } = callOf(ref)
  const found = waiting.filter((c) => c.id === id && (where === undefined || c.session_id === where))
  if (found.length > 1)
    throw new AgentError('INVALID_INPUT', `Call ${id} waits in ${found.length} sessions (${found.map((c) => c.session_id).join(', ')}); name it with its session: { id: '${id}', session_id } from waiting_for.`)
  if (found[0]) return { id, session_id: found[0].session_id }
  // Another session's state is never read for an answer to this tree: nothing of it is told.
  if (where !== undefined && where !== session_id)
    throw new AgentError('UNKNOWN_CALL', `No sub-agent session ${where} of the tree of session ${session_id} waits for a call ${describe(id)}; GET /sessions/${session_id}/waiting (SessionHandle.waiting) lists what it waits for.`)
  return { id, session_id }
}

/** The input event of `answer`, built from `state`, the state of the session the call waits in. */
export const answerInput = (state: AgentState, answer: Answer, id: string): AgentInput => {
  if ('approve' in answer) return approveEvent(state, id, { input: answer.input })
  if ('deny' in answer) return denyEvent(state, id, typeof answer.reason === 'string' ? answer.reason : undefined)
  const { result } = answer
  const given: ExternalResult = asExternalResult(result)
  return submitResultEvent(state, id, given)
}

/** The CallRef of an answer. */
export const refOf = (answer: Answer): CallRef => ('approve' in answer ? answer.approve : 'deny' in answer ? answer.deny : answer.submit)
