// Time travel over a log (a LogStore or an array of events; read a file with readLogFile).
// `stateAt(log, seq)` is the state after event `seq`: a fold, from the log's snapshot when one lies
// at or before seq. `fork(log, seq, options)` starts a new agent there: a new log holding events
// 1..seq and a CUSTOM `agentlog.fork` marker, and a new session id; a reply cut while running is
// closed by the agent exactly as on restore. The old log is only read.
import { replay } from '../reducers/root.js'
import type { AgentState } from '../reducers/state.js'
import { createAgent, type Agent, type AgentOptions } from './agent.js'
import { createEvent, systemClock } from './clock.js'
import { AgentError, describe } from './errors.js'
import type { AgentEvent } from './events.js'
import { memoryLog, type LogStore } from './log.js'

export type LogSource = LogStore | readonly AgentEvent[]

export interface ForkOptions extends Omit<AgentOptions, 'log'> {
  /** Where the fork's events go; it must be empty (default: a new memory log). */
  log?: LogStore
}

export const FORK_EVENT_NAME = 'agentlog.fork'

const isStore = (log: LogSource): log is LogStore => !Array.isArray(log)

const checkSeq = (what: string, seq: unknown, length: number): number => {
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

/** A new agent that goes on from the state after event `seq` of `log`, in a new session. */
export const fork = (log: LogSource, seq: number, options: ForkOptions): Agent => {
  const events = isStore(log) ? log.events : log
  const prefix = events.slice(0, checkSeq('fork', seq, events.length))
  const target = options.log ?? memoryLog()
  if (target === log) throw new AgentError('INVALID_OPTION', 'fork: options.log is the log being forked; give a new, empty log (the old one is never written).')
  if (target.read({ fromSeq: 0 }).length > 0)
    throw new AgentError('INVALID_OPTION', 'fork: options.log must be empty; the fork writes the forked events into it. Give a new fileLog path or leave it out (memory).')
  const clock = options.clock ?? systemClock
  const from = replay(prefix)
  const session_id = options.session_id ?? clock.id()
  if (session_id === from.session_id) throw new AgentError('INVALID_OPTION', `fork: session_id ${session_id} is the forked session's; a fork needs a new session id (leave it out to get one).`)
  const marker = createEvent(clock, 'CUSTOM', {
    name: FORK_EVENT_NAME,
    value: { from_session_id: from.session_id, from_seq: seq, session_id },
    metadata: { seq: seq + 1 },
  })
  target.append([...prefix, marker], { expectedSeq: 0 })
  return createAgent({ ...options, log: target, session_id })
}
