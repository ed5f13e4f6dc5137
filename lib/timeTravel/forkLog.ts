// One log forked: the fork's new, empty log receives the kept events and a CUSTOM `agentlog.fork`
// marker naming the session and seq it was forked from; a reply cut while running is closed by
// the agent made on it (as on restore), or here (closeCut) for a sub-agent's log made without one.
import { closeReply } from '../../reducers/interrupt.js'
import { replay } from '../../reducers/root.js'
import type { AgentOptions } from '../agent/agent.js'
import { createEvent, type Clock } from '../core/clock.js'
import { AgentError } from '../core/errors.js'
import type { AgentEvent } from '../core/events.js'
import { memoryLog, type LogStore } from '../core/log.js'

export interface ForkOptions extends Omit<AgentOptions, 'log'> {
  /** Where the fork's events go; it must be empty (default: a new memory log). */
  log?: LogStore
}

export const FORK_EVENT_NAME = 'agentlog.fork'

/** The fork's log: `given` (new and empty, not the forked one) or a new memory log. */
export const forkTarget = (given: LogStore | undefined, forked: unknown): LogStore => {
  const target = given ?? memoryLog()
  if (target === forked) throw new AgentError('INVALID_OPTION', 'fork: options.log is the log being forked; give a new, empty log (the old one is never written).')
  if (target.read({ fromSeq: 0 }).length > 0)
    throw new AgentError('INVALID_OPTION', 'fork: options.log must be empty; the fork writes the forked events into it. Give a new fileLog path or leave it out (memory).')
  return target
}

/** Writes `kept` (a log's first events) and the fork marker into the empty `target`, as session `session_id`. */
export const writeFork = (kept: readonly AgentEvent[], session_id: string, target: LogStore, clock: Clock): void => {
  const from = replay(kept)
  if (session_id === from.session_id) throw new AgentError('INVALID_OPTION', `fork: session_id ${session_id} is the forked session's; a fork needs a new session id (leave it out to get one).`)
  const seq = kept.length
  const marker = createEvent(clock, 'CUSTOM', {
    name: FORK_EVENT_NAME,
    value: { from_session_id: from.session_id, from_seq: seq, session_id },
    metadata: { seq: seq + 1 },
  })
  target.append([...kept, marker], { expectedSeq: 0 })
}

/** Closes a reply the log was cut in while it ran, as interrupted (what an agent restored on it would append). */
export const closeCut = (log: LogStore, clock: Clock): void => {
  const events = log.events
  const state = replay(events)
  if (state.status !== 'running') return
  const closing = closeReply(state, clock, { reason: 'interrupted' }).map((event, i) => ({ ...event, metadata: { ...event.metadata, seq: events.length + i + 1 } }))
  log.append(closing, { expectedSeq: events.length })
}
