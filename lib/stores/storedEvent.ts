// One stored event read back by a database store (PostgreSQL rows, NATS messages): its JSON parsed and
// checked like an input, and its seq stamp, when it has one, equal to the position it is stored at.
// `fail(why)` makes the store's own INVALID_LOG error, which names where the events are kept.
import type { AgentEvent } from '../core/events.js'
import { checkEvent } from './file/check.js'

export const parseStoredEvent = (body: string, at: number, fail: (why: string) => Error): AgentEvent => {
  let value: unknown
  try {
    value = JSON.parse(body)
  } catch {
    throw fail('its body is not JSON')
  }
  const problem = checkEvent(value)
  if (problem !== null) throw fail(`not a valid event: ${problem}`)
  const event = value as AgentEvent
  if (event.metadata.seq !== undefined && event.metadata.seq !== at) throw fail(`it is stamped seq ${JSON.stringify(event.metadata.seq)}`)
  return event
}
