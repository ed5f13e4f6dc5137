// Forking a tree of sessions in a store: the session is forked at event `seq` (timeTravel's fork:
// a new session going on from there), and so is every sub-agent session its kept events started,
// as it was at that point, as lib/timeTravel/forkPlan.ts plans it (the same plan as forking an
// agent's tree in memory). The logs share no seq: a sub-agent's log keeps the events made before
// the root's event seq + 1, told exactly by their ids (one process's clock counts them up, see
// idOrder in lib/core/clock.ts), by their times only for ids of different clocks (a failover between
// processes). Every fork gets a new session id, and the links are rewritten to the new ids (the
// parents' calls' `metadata.child_session_id`, the sub-agents' REPLY_START `metadata.parent`).
// Sub-agents are forked deepest first, so a reply cut while running is closed in each log before its
// parent's; a sub-agent parked under a reply the fork closes (the parent ran another call meanwhile)
// is interrupted with it, as a Stop of the tree would (an agent forked in memory does the same by
// reviving it).
import { systemClock } from '../core/clock.js'
import { AgentError, describe } from '../core/errors.js'
import type { AgentEvent } from '../core/events.js'
import { fork } from '../timeTravel/fork.js'
import { deepestFirst, planAsync, planTreeFork, type ForkedSession } from '../timeTravel/forkPlan.js'
import { replay } from '../../reducers/root.js'
import type { HubOptions, SessionStore } from './types.js'

/** The log of a session of `store`, or null when it is no longer stored. */
const readStored = async (store: SessionStore, session_id: string): Promise<AgentEvent[] | null> => {
  try {
    return await store.read(session_id)
  } catch (error) {
    if (error instanceof AgentError && error.code === 'NOT_FOUND') return null
    throw error
  }
}

/**
 * Forks session `session_id` of `store` at event `seq` with its sub-agent sessions; resolves with
 * the new root session's id. `agent` makes each fork's agent options (the hub's `agent`).
 */
export const forkTree = async (store: SessionStore, session_id: string, seq: number, agent: HubOptions['agent']): Promise<string> => {
  const events = await store.read(session_id)
  if (!Number.isInteger(seq) || seq < 0 || seq > events.length)
    throw new AgentError('INVALID_INPUT', `A fork needs a seq from 0 to ${events.length} (the session's last event); received ${describe(seq)}.`)
  const root = await planAsync(planTreeFork(session_id, events, seq, () => systemClock.id()), (id) => readStored(store, id))
  const closing = closedWithParent(root)
  for (const session of deepestFirst(root)) {
    const { session_id: id, events: kept, parent } = session
    await store.create({ session_id: id, metadata: { forked_from: session.from_session_id, from_seq: kept.length, ...(parent && { parent }) } })
    const log = await store.open(id)
    const forked = fork(kept, kept.length, { ...(await agent(id)), log, session_id: id })
    try {
      if (closing.has(id) && forked.state.status === 'paused') await forked.interrupt()
    } finally {
      await forked.close()
    }
  }
  return root.session_id
}

/** The forked sessions whose paused reply is closed because their parent's reply is: cut while running, or closed itself. */
const closedWithParent = (root: ForkedSession): Set<string> => {
  const closing = new Set<string>()
  const visit = (session: ForkedSession, parentClosed: boolean) => {
    const { status } = replay(session.events)
    if (parentClosed && status === 'paused') closing.add(session.session_id)
    for (const child of session.children) visit(child, status === 'running' || closing.has(session.session_id))
  }
  visit(root, false)
  return closing
}
