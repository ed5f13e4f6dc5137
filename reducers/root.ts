// The root reducer: folds one event into the state by running each slice in turn (each writes only
// its own keys) and counts the event in `seq`. `replay(log)` folds a whole log from the initial
// state; it never calls a model or a tool, and refuses an entry that is not an event.
import { AgentError, describe } from '../lib/core/errors.js'
import type { AgentEvent } from '../lib/core/events.js'
import { compaction } from './compaction.js'
import { conversation } from './conversation.js'
import { protocolProblems } from './protocol.js'
import { reply } from './reply.js'
import { rules } from './rules.js'
import { talk } from './talk.js'
import { copyState } from './shapes.js'
import { initialState, type AgentState } from './state.js'
import { usage } from './usage.js'

// Order matters: `rules` reads the paused status before `reply` moves it on, `usage` reads the
// open model call before `reply` closes it, `reply` reads the message `conversation` produced, and
// `conversation` reads the steers a STEER_JOINED moves before `talk` drops them.
const slices = [rules, usage, conversation, compaction, reply, talk]

export const rootReducer = (state: AgentState, event: AgentEvent): AgentState => {
  let next = state
  for (const slice of slices) next = slice(next, event)
  // `next` is either a fresh object that no one else has seen yet, or a fresh copy: counting the
  // event in it in place is safe.
  if (next === state) next = copyState(state)
  next.seq = state.seq + 1
  return next
}

export interface ReplayOptions {
  /** Refuse a log whose events cannot have happened in that order (checked from its first event). */
  strict?: boolean
}

export const replay = (log: Iterable<AgentEvent>, from: AgentState = initialState(), { strict = false }: ReplayOptions = {}): AgentState => {
  if (strict) {
    const [problem] = protocolProblems([...log])
    if (problem) throw new AgentError('INVALID_LOG', `The log cannot have happened: ${problem}. It was reordered, cut or edited; replay a log the agent wrote.`)
  }
  let state = from
  let position = from.seq
  for (const event of log) {
    position++
    if (typeof event !== 'object' || event === null || typeof (event as { type?: unknown }).type !== 'string' || typeof event.metadata !== 'object' || event.metadata === null)
      throw new AgentError('INVALID_LOG', `Entry ${position} of the log is not an event (received ${describe(event)}); replay takes the events of agent.log or a log file.`)
    state = rootReducer(state, event)
  }
  return state
}
