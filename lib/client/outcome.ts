// What a remote reply resolves to, read from the log and state the client folded: the same values
// as a local `agent.reply()` (lib/agent/replyRun.ts `endedReplyMsg`): the final message, the paused
// message with the calls it waits for, a notice for an interrupted reply (`interruptText`; AbortError
// with rejectOnInterrupt), for exceeded iterations and for a structured output, and a ModelError for
// a reply that ended with a model error.
import type { AgentState } from '../../reducers/state.js'
import { selectEndedReply } from '../../reducers/selectors.js'
import { AbortError, AgentError, ModelError } from '../core/errors.js'
import type { AgentEvent, ReplyEndEvent } from '../core/events.js'
import { endedReplyMsg } from '../agent/replyEnd.js'
import { asReply, type Reply } from '../agent/text.js'

export interface OutcomeOptions {
  interruptText: string
  rejectOnInterrupt?: boolean
}

/** The last event of `log` that `match` accepts, searching from its end. */
const lastOf = <E extends AgentEvent>(log: readonly AgentEvent[], match: (event: AgentEvent) => event is E): E | undefined => {
  for (let i = log.length - 1; i >= 0; i--) if (match(log[i])) return log[i] as E
  return undefined
}

/**
 * The outcome of reply `reply_id` once `state` (the fold of `log`) holds its end or pause.
 * `abandoned`: the caller stopped it and its end has not arrived yet; it resolves as interrupted.
 */
export const replyOutcome = (state: AgentState, log: readonly AgentEvent[], reply_id: string, options: OutcomeOptions, abandoned = false): Reply => {
  // Each waiting call names its session, as a local reply's do (this session: the client sees no sub-agents' logs).
  if (state.reply_id === reply_id && state.reply_msg && state.status === 'paused') return asReply(state.reply_msg, state.waiting_for.map((c) => ({ ...c, session_id: state.session_id! })))
  const ended = lastOf(log, (e): e is ReplyEndEvent => e.type === 'REPLY_END' && e.reply_id === reply_id)
  if (!ended && !abandoned) throw new AgentError('INTERNAL', `Reply ${reply_id} has not ended in the session's log.`)
  const end = ended ?? ({ type: 'REPLY_END', reply_id, finished_reason: 'interrupted', error: null, created_at: new Date().toISOString(), metadata: {} } as unknown as ReplyEndEvent)
  if (end.finished_reason === 'error') throw new ModelError(end.error ?? { type: 'unknown', message: 'The model call failed.' })
  if (end.finished_reason === 'interrupted' && options.rejectOnInterrupt) throw new AbortError(reply_id)
  const msg = selectEndedReply(state, reply_id)
  // A reply interrupted before the model produced anything has no message: its REPLY_START names the agent.
  const name = msg?.name ?? lastOf(log, (e): e is AgentEvent & { name: string } => e.type === 'REPLY_START' && e.reply_id === reply_id)?.name ?? ''
  const value = endedReplyMsg(end, msg, name, options.interruptText)
  if (!value) throw new AgentError('INTERNAL', `Reply ${reply_id} ended without a message in the session's log.`)
  return asReply(value, [])
}
