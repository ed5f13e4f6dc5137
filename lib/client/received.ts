// What the remote client accepts from the server: an event is checked like an input to the store
// (its shape by the event schema, its `metadata.seq` against the SSE id and the position it should
// fill) before it is folded or yielded, so a malformed event never reaches the log or the state.
import { AgentError, describe } from '../errors.js'
import type { AgentEvent } from '../events.js'
import { validateEvent } from '../store.js'
import type { SseMessage } from './sse.js'

/** The event a message carries, with its seq; INVALID_EVENT when its shape or its seq is wrong. */
export const receivedEvent = (message: SseMessage): { seq: number; event: AgentEvent } => {
  let event: AgentEvent
  try {
    event = validateEvent(message.data)
  } catch (error) {
    const why = error instanceof AgentError ? error.message.replace(/ Create events with.*$/, '') : describe(message.data)
    throw new AgentError('INVALID_EVENT', `The server sent an event that is not valid${message.id ? ` (id ${message.id})` : ''}: ${why}`)
  }
  const seq = event.metadata.seq
  if (typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq < 1 || (message.id !== undefined && String(seq) !== message.id))
    throw new AgentError('INVALID_EVENT', `The server sent a ${event.type} event whose metadata.seq (${describe(seq)}) is not its id (${message.id ?? 'none'}).`)
  return { seq, event: message.data as AgentEvent }
}
