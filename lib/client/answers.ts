// A remote tree answered like a local one: a call is named by a CallRef (its id, or a call of
// `waiting_for` with its `session_id`), sent as `{ tool_call_id, session_id? }`; a paused reply's
// `waiting_for` lists what the whole tree waits for (GET /waiting: the deepest asking calls, each
// with the session it waits in), as a local agent's and a hub session's do.
import { AgentError, describe } from '../core/errors.js'
import { asReply, type Reply, type WaitingCall } from '../agent/text.js'
import type { AgentState } from '../../reducers/state.js'
import type { CallRef } from '../subagents/tree.js'
import type { Transport } from './transport.js'

/** The JSON of a CallRef in an answer's body. */
export const callBody = (call: CallRef): { tool_call_id: string; session_id?: string } => {
  if (typeof call === 'string' && call) return { tool_call_id: call }
  const ref = call as { id?: unknown; session_id?: unknown } | null
  if (typeof ref?.id !== 'string' || !ref.id || (ref.session_id !== undefined && typeof ref.session_id !== 'string'))
    throw new AgentError('INVALID_INPUT', `A call is named by its id or by a call of waiting_for ({ id, session_id }); received ${describe(call)}.`)
  return { tool_call_id: ref.id, ...(typeof ref.session_id === 'string' && { session_id: ref.session_id }) }
}

/** `reply` with the calls its tree waits for, when it is the session's paused reply (else as it is). */
export const withTreeWaiting = async (reply: Reply, state: AgentState, transport: Transport): Promise<Reply> => {
  if (state.status !== 'paused' || state.reply_id !== reply.id) return reply
  const { waiting_for } = (await transport.call('GET', '/waiting')) as { waiting_for: WaitingCall[] }
  return asReply(reply, waiting_for)
}
