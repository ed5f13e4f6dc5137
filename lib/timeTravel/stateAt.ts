// The state at any point of a log (a LogStore or an array of events; read a file with readLogFile):
// `stateAt(log, seq)` is the state after event `seq`, a fold from the log's snapshot when one lies
// at or before seq.
import { replay } from '../../reducers/root.js'
import type { AgentState } from '../../reducers/state.js'
import { AgentError, describe } from '../core/errors.js'
import type { AgentEvent } from '../core/events.js'
import type { LogStore } from '../core/log.js'

export type LogSource = LogStore | readonly AgentEvent[]

export const isStore = (log: LogSource): log is LogStore => !Array.isArray(log)

export const checkSeq = (what: string, seq: unknown, length: number): number => {
  if (!Number.isInteger(seq) || (seq as number) < 0 || (seq as number) > length)
    throw new AgentError('INVALID_OPTION', `${what}: seq must be a whole number from 0 (before the first event) to ${length} (the log's last event); received ${describe(seq)}.`)
  return seq as number
}

/** The state after event `seq` (0: the initial state). */
export const stateAt = (log: LogSource, seq: number): AgentState => {
  if (isStore(log)) {
    const snapshot = log.snapshot?.() ?? null
    if (snapshot && Number.isInteger(seq) && seq >= snapshot.seq) {
      const after = log.read({ fromSeq: snapshot.seq })
      checkSeq('stateAt', seq, snapshot.seq + after.length)
      return replay(after.slice(0, seq - snapshot.seq), snapshot.state)
    }
  }
  const events = isStore(log) ? log.events : log
  return replay(events.slice(0, checkSeq('stateAt', seq, events.length)))
}
