// What the remote client accepts from the server: an event is checked like an input to the store
// (its shape by the event schema, its `metadata.seq` against the SSE id and the position it should
// fill) before it is folded or yielded, so a malformed event never reaches the log or the state.
// A sub-agent's event in a stream asked with `descendants` (tagged with its `metadata.session_id`)
// is checked for its shape too, but its seq is its own session's: it is yielded, never folded.
import { AgentError, describe } from '../core/errors.js'
import type { AgentEvent } from '../core/events.js'
import { validateEvent } from '../core/store.js'
import type { SseMessage } from './sse.js'

/** The shape check of `message`'s event: INVALID_EVENT, naming what is wrong, for a malformed one. */
const checkedShape = (message: SseMessage): AgentEvent => {
  try {
    return validateEvent(message.data)
  } catch (error) {
    const why = error instanceof AgentError ? error.message.replace(/ Create events with.*$/, '') : describe(message.data)
    throw new AgentError('INVALID_EVENT', `The server sent an event that is not valid${message.id ? ` (id ${message.id})` : ''}: ${why}`)
  }
}

const isSeq = (seq: unknown): seq is number => typeof seq === 'number' && Number.isSafeInteger(seq) && seq >= 1

/** The event a message carries, with its seq; INVALID_EVENT when its shape or its seq is wrong. */
export const receivedEvent = (message: SseMessage): { seq: number; event: AgentEvent } => {
  const event = checkedShape(message)
  const seq = event.metadata.seq
  if (!isSeq(seq) || (message.id !== undefined && String(seq) !== message.id))
    throw new AgentError('INVALID_EVENT', `The server sent a ${event.type} event whose metadata.seq (${describe(seq)}) is not its id (${message.id ?? 'none'}).`)
  return { seq, event: message.data as AgentEvent }
}

/** The session a message's event is tagged with (`metadata.session_id`), read before any check; undefined for an untagged one. */
export const taggedSession = (message: SseMessage): string | undefined => {
  const metadata = (message.data as { metadata?: { session_id?: unknown } } | null)?.metadata
  return typeof metadata?.session_id === 'string' ? metadata.session_id : undefined
}

/**
 * A sub-agent's event (tagged with another session than the followed one), with its seq in that
 * session: INVALID_EVENT for a bad shape or seq, or an SSE id (ids name the followed session's events only).
 */
export const receivedDescendantEvent = (message: SseMessage): { session_id: string; seq: number; event: AgentEvent } => {
  const event = checkedShape(message)
  const { seq, session_id } = event.metadata
  if (message.id !== undefined) throw new AgentError('INVALID_EVENT', `The server sent a ${event.type} event of session ${describe(session_id)} with an id (${message.id}); ids name only the followed session's events.`)
  if (!isSeq(seq)) throw new AgentError('INVALID_EVENT', `The server sent a ${event.type} event of session ${describe(session_id)} whose metadata.seq (${describe(seq)}) is not a seq.`)
  return { session_id: session_id as string, seq, event: message.data as AgentEvent }
}
