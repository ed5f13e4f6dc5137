// What a remote reply resolves to, read from the state the client folded: the same values as a
// local `agent.reply()` (lib/replyRun.ts): the final message, the paused message with the calls it
// waits for, the interruptText message for an interrupted reply (or AbortError with
// rejectOnInterrupt), and a ModelError for a reply that ended with a model error.
import type { AgentState } from '../../reducers/state.js'
import { selectEndedReply } from '../../reducers/selectors.js'
import { AbortError, AgentError, ModelError } from '../errors.js'
import type { ReplyEndEvent } from '../events.js'
import { interruptionMsg } from '../replyRun.js'
import { asReply, type Reply } from '../text.js'

export interface OutcomeOptions {
  interruptText: string
  rejectOnInterrupt?: boolean
}

/**
 * The outcome of reply `reply_id` in `state` (which has folded its end or pause). `abandoned`: the
 * caller stopped it and its end has not arrived yet; it resolves as an interrupted reply.
 */
export const replyOutcome = (state: AgentState, reply_id: string, options: OutcomeOptions, abandoned = false): Reply => {
  if (state.reply_id === reply_id && state.reply_msg && state.status === 'paused') return asReply(state.reply_msg, state.waiting_for)
  const ended = selectEndedReply(state, reply_id)
  if (!ended && !(abandoned && state.reply_id === reply_id)) throw new AgentError('INTERNAL', `Reply ${reply_id} has not ended in the session's log.`)
  if (ended?.finished_reason === 'error') throw new ModelError(ended.error ?? { type: 'unknown', message: 'The model call failed.' })
  if (ended && ended.finished_reason !== 'interrupted') return asReply(ended, [])
  if (options.rejectOnInterrupt) throw new AbortError(reply_id)
  const message = ended ?? state.reply_msg
  const end = { reply_id, created_at: message?.finished_at ?? new Date().toISOString() } as ReplyEndEvent
  return asReply(interruptionMsg(end, message?.name ?? '', options.interruptText), [])
}
