// Forking an agent with its sub-agents outside a hub (the tree of `agent.children()` in this
// process), as forkPlan.ts plans it: each sub-agent's log as it was at that point, new session ids,
// links rewritten. Each forked sub-agent gets a new memory log holding its kept events and the fork
// marker, its reply closed as interrupted when it was cut while running, written deepest first.
// The forked root is made on its own fork with a SubagentLogs that reopens those logs, so, as an
// agent restored from its logs, it reopens the sub-agents of its reply in progress (its
// `children()`) before it closes its own cut reply; every forked sub-agent's log is reachable with
// `forked.subagentLogs.reopen(child_session_id)`, by the ids its log's calls name.
import type { Agent } from '../agent/agent.js'
import { createAgent } from '../agent/agent.js'
import { systemClock } from '../core/clock.js'
import { memoryLog, type LogStore } from '../core/log.js'
import type { SubagentLogs } from '../subagents/childLogs.js'
import { findSession } from '../subagents/tree.js'
import { closeCut, forkTarget, writeFork, type ForkOptions } from './forkLog.js'
import { deepestFirst, planSync, planTreeFork } from './forkPlan.js'
import { checkSeq } from './stateAt.js'

/** `agent` forked at event `seq` of its log with the sub-agents its calls ran in this process (see fork). */
export const forkAgentTree = (agent: Agent, seq: number, options: ForkOptions): Agent => {
  const events = agent.log
  checkSeq('fork', seq, events.length)
  const clock = options.clock ?? systemClock
  const target = forkTarget(options.log, null)
  const planner = planTreeFork(agent.session_id, events, seq, () => clock.id(), options.session_id)
  const root = planSync(planner, (session_id) => findSession(agent, session_id)?.log ?? null)
  const logs = new Map<string, LogStore>()
  for (const session of deepestFirst(root)) {
    if (session === root) break
    const log = memoryLog()
    writeFork(session.events, session.session_id, log, clock)
    closeCut(log, clock)
    logs.set(session.session_id, log)
  }
  writeFork(root.events, root.session_id, target, clock)
  const subagentLogs = logs.size ? forkedLogs(logs, options.subagentLogs) : options.subagentLogs
  return createAgent({ ...options, log: target, session_id: root.session_id, ...(subagentLogs && { subagentLogs }) })
}

/** Where the forked tree's sub-agents keep their logs: the forks reopened by id, new ones where `given` puts them (default: in memory). */
const forkedLogs = (forks: ReadonlyMap<string, LogStore>, given: SubagentLogs | undefined): SubagentLogs => ({
  open: (session_id, parent) => (given ? given.open(session_id, parent) : Promise.resolve(memoryLog())),
  reopen: (session_id) => forks.get(session_id) ?? given?.reopen(session_id) ?? null,
})
