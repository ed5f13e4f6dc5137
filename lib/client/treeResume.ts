// The rest of a reply stream asked with `descendants` after the network cut it: read from the
// session's events with its sub-agents' (GET /events?descendants=1 from the last durable seq; the
// server follows the sub-agents of the reply in progress from their start), in the server's order.
// The session's own events yielded before the cut (by id) and the sub-agents' (by session and seq)
// are skipped. The reply ends at its REPLY_END, or pauses where the folded state (fed by the
// follower, own events only) shows it paused at the last own event read; a stream cut again is read
// again from there. Nothing read here is folded.
import type { BehaviorSubject } from 'rxjs'
import type { AgentState } from '../../reducers/state.js'
import { pause } from '../core/abort.js'
import { AgentError } from '../core/errors.js'
import { isOutputEvent, type OutputEvent } from '../core/events.js'
import { receivedEvent } from './received.js'
import type { SseMessage } from './sse.js'
import { isDescendantMessage, takeDescendant, type ReplyTrack } from './track.js'

export interface TreeSource {
  session_id: string
  /** GET /events?descendants=1 after `fromSeq`, ended when `signal` aborts; rejects with the server's coded refusal. */
  open(fromSeq: number, signal: AbortSignal): Promise<AsyncIterable<SseMessage>>
  /** The folded state of the session's own events. */
  states: BehaviorSubject<AgentState>
  /** Resolves once the folded log holds `seq` events. */
  reach(seq: number): Promise<void>
}

const FIRST_PAUSE_MS = 25
const LAST_PAUSE_MS = 2000


/**
 * Yields the rest of `track`'s reply with its sub-agents' events; returns true at its end or pause,
 * false when `stop` aborts first. A bad event or a refusal throws its AgentError.
 */
export async function* resumeTree(source: TreeSource, track: ReplyTrack, stop: AbortSignal): AsyncGenerator<OutputEvent, boolean> {
  let wait = FIRST_PAUSE_MS
  while (!stop.aborted) {
    // From a seq the server's log holds (a position past its end is refused).
    await source.reach(track.seq)
    const reading = new AbortController()
    const onStop = () => reading.abort()
    stop.addEventListener('abort', onStop)
    // The seq of the last own event read: paused there, the reply is paused (not at an earlier pause of it).
    let own = track.seq
    const pausedHere = () => {
      const { status, reply_id, seq } = source.states.value
      return status === 'paused' && reply_id === track.reply_id && seq === own && own >= track.last
    }
    let paused!: () => void
    const pausing = new Promise<'paused'>((resolve) => (paused = () => resolve('paused')))
    const watch = source.states.subscribe(() => pausedHere() && paused())
    let messages: AsyncIterator<SseMessage> | undefined
    try {
      messages = (await source.open(track.seq, reading.signal))[Symbol.asyncIterator]()
      for (;;) {
        if (pausedHere()) return true
        const next = await Promise.race([messages.next(), pausing])
        if (next === 'paused') return true
        if (next.done) break
        const message = next.value
        if (isDescendantMessage(message, source.session_id)) {
          const event = takeDescendant(track, message, true)
          if (event) yield event
          continue
        }
        const { seq, event } = receivedEvent(message)
        if (seq <= own) throw new AgentError('INVALID_EVENT', `The server sent a ${event.type} event with seq ${seq} after seq ${own} in one event stream.`)
        own = seq
        // Read from the log, every event is durable: a stream cut again goes on from here.
        track.seq = seq
        if (!isOutputEvent(event) || event.reply_id !== track.reply_id || track.since.has(event.id)) continue
        track.last = Math.max(track.last, seq)
        yield event
        if (event.type === 'REPLY_END') return true
      }
      wait = FIRST_PAUSE_MS
    } catch (error) {
      // A refusal or a bad event ends the stream with its code; a cut network is read again.
      if (error instanceof AgentError) throw error
    } finally {
      watch.unsubscribe()
      stop.removeEventListener('abort', onStop)
      reading.abort()
      void messages?.return?.().catch(() => {})
    }
    await pause(wait, stop)
    wait = Math.min(wait * 2, LAST_PAUSE_MS)
  }
  return false
}
