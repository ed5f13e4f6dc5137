// What a reply resolves to once it has ended: AgentScope's notices for an interrupt, exceeded
// iterations and a structured output, or the reply's own message; and the REPLY_END of a reply.
import type { AgentEvent, ReplyEndEvent } from '../core/events.js'
import type { Msg } from '../core/messages.js'
import { structuredOutputOf } from '../../reducers/structuredOutput.js'
import { OUTPUT_DONE_TEXT } from './structuredOutput.js'

/** The REPLY_END of reply `reply_id`, searching the log from its end. */
export const lastEndOf = (log: readonly AgentEvent[], reply_id: string): ReplyEndEvent | undefined => {
  for (let i = log.length - 1; i >= 0; i--) {
    const event = log[i]
    if (event.type === 'REPLY_END' && event.reply_id === reply_id) return event
  }
  return undefined
}

/** What reply() resolves to when the maximum iterations end a reply (AgentScope's text). */
export const EXCEEDED_TEXT = 'The maximum reasoning-acting iterations are exceeded.'

/**
 * What reply() resolves to once a reply ended without an error, as AgentScope: a notice for an
 * interrupt (`interruptText`), for exceeded iterations, and for a structured output (the value in its
 * `structured_output`); otherwise the reply's message from the context (`msg`).
 */
export const endedReplyMsg = (end: ReplyEndEvent, msg: Msg | undefined, name: string, interruptText: string): Msg | undefined => {
  if (end.finished_reason === 'interrupted') return noticeMsg(end, name, interruptText)
  if (end.finished_reason === 'exceed_max_iters') return noticeMsg(end, name, EXCEEDED_TEXT)
  const value = msg ? structuredOutputOf(msg) : null
  return value ? noticeMsg(end, name, OUTPUT_DONE_TEXT, value) : msg
}

const noticeMsg = (end: ReplyEndEvent, name: string, text: string, structured_output: Record<string, unknown> | null = null): Msg => ({
  id: end.reply_id, name, role: 'assistant', metadata: {}, created_at: end.created_at,
  content: [{ type: 'text', id: `${end.reply_id}-${end.finished_reason}`, text, created_at: end.created_at, finished_at: end.created_at }],
  usage: null, finished_at: end.created_at, finished_reason: end.finished_reason, structured_output, error: null,
})

