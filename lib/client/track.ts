// How one remote reply stream went (ReplyTrack), and the sub-agents' events of a stream asked with
// `descendants`: a tagged event is checked (received.ts) and counted per sub-agent session by its
// seq, so one read again after a cut is known and skipped. Tagged events are never folded.
import { AgentError } from '../core/errors.js'
import { isOutputEvent, type OutputEvent } from '../core/events.js'
import { receivedDescendantEvent, taggedSession } from './received.js'
import type { SseMessage } from './sse.js'

/**
 * How one reply stream went: its id, the seq of its last durable event (the server names a seq,
 * `id:`, only on the events committed when delivered: its end and pauses), the events yielded since
 * (skipped when the rest is read from the log), and whether its caller stopped it.
 */
export interface ReplyTrack {
  reply_id: string | null
  seq: number
  since: Set<string>
  /** The seq of the last event yielded (durable or not): the folded state has caught up once it is there. */
  last: number
  stopped: boolean
  /** With `descendants`: the seq of the last event yielded of each sub-agent session. */
  descendants: Map<string, number>
}

export const newTrack = (): ReplyTrack => ({ reply_id: null, seq: 0, since: new Set(), last: 0, stopped: false, descendants: new Map() })

/** A message carrying a sub-agent's event: tagged with another session than the followed one (whose own events are untagged). */
export const isDescendantMessage = (message: SseMessage, session_id: string): boolean => {
  const tag = taggedSession(message)
  return tag !== undefined && tag !== session_id
}

/**
 * The sub-agent's event `message` carries, checked and counted in `track`; null when it is not an
 * output event or, with `resumed` (read again after a cut), when it was already yielded. In one
 * stream a seq going back in its session is INVALID_EVENT.
 */
export const takeDescendant = (track: ReplyTrack, message: SseMessage, resumed = false): OutputEvent | null => {
  const { session_id, seq, event } = receivedDescendantEvent(message)
  const last = track.descendants.get(session_id) ?? 0
  if (seq <= last) {
    if (resumed) return null
    throw new AgentError('INVALID_EVENT', `The server sent a ${event.type} event of session ${session_id} with seq ${seq} after its seq ${last} in one reply stream.`)
  }
  track.descendants.set(session_id, seq)
  return isOutputEvent(event) ? event : null
}
