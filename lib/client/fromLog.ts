// The rest of a reply a remoteAgent streams, read from the session's followed log: after a cut
// network, and the closing events of a reply the caller stopped.
import { isOutputEvent, type OutputEvent } from '../core/events.js'
import type { FoldedLog } from './foldedLog.js'
import type { ReplyTrack } from './track.js'

/** The rest of `track`'s reply after its seq but the events it yielded since, as the followed log holds it (to its end or pause); waiting for more only with `wait`. */
export async function* replyFromLog(folded: FoldedLog, track: ReplyTrack, wait: boolean): AsyncGenerator<OutputEvent, true> {
  for (;;) {
    while (track.seq < folded.entries.length) {
      const event = folded.entries[track.seq++]
      if (!isOutputEvent(event) || event.reply_id !== track.reply_id || track.since.has(event.id)) continue
      track.last = Math.max(track.last, track.seq)
      yield event
      if (event.type === 'REPLY_END') return true
    }
    // Paused again: once the state has folded every event yielded (not an earlier pause of this reply).
    const { status, reply_id, seq } = folded.states.value
    if (!wait || (status === 'paused' && reply_id === track.reply_id && seq >= track.last)) return true
    await folded.reach(track.seq + 1)
  }
}
