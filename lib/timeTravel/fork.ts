// Forking: `fork(source, seq, options)` starts a new agent from the state after event `seq`, in a
// new session: its log holds events 1..seq and a CUSTOM `agentlog.fork` marker; a reply cut while
// running is closed by the agent exactly as on restore. The source is only read. An agent given as
// the source is forked with its sub-agents (agentTree.ts).
import { Agent, createAgent } from '../agent/agent.js'
import { systemClock } from '../core/clock.js'
import { forkAgentTree } from './agentTree.js'
import { forkTarget, writeFork, type ForkOptions } from './forkLog.js'
import { checkSeq, isStore, type LogSource } from './stateAt.js'

/**
 * A new agent that goes on from the state after event `seq` of `source`, in a new session. A log
 * (a LogStore or events) is forked alone; an agent is forked with its tree (forkAgentTree): its
 * sub-agents in this process are forked as they were at that point.
 */
export const fork = (source: LogSource | Agent, seq: number, options: ForkOptions): Agent => {
  if (source instanceof Agent) return forkAgentTree(source, seq, options)
  const events = isStore(source) ? source.events : source
  const prefix = events.slice(0, checkSeq('fork', seq, events.length))
  const target = forkTarget(options.log, source)
  const clock = options.clock ?? systemClock
  const session_id = options.session_id ?? clock.id()
  writeFork(prefix, session_id, target, clock)
  return createAgent({ ...options, log: target, session_id })
}
