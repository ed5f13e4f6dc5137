// Forking a tree of sessions: the session is forked at event `seq` (timeTravel's fork: a new
// session going on from there), and so is every sub-agent session its forked events started, as
// it was at that point: each sub-agent's log keeps the events it had before the forked session's
// next event (the logs share no seq; their events' times order them), all of them when the session
// is forked at its last event. Every fork
// gets a new session id, and the links are rewritten to the new ids (the parents' calls'
// `metadata.child_session_id`, the sub-agents' REPLY_START `metadata.parent`). Sub-agents are
// forked deepest first, so a reply cut while running is closed in each log before its parent's.
import { systemClock } from '../clock.js'
import { AgentError, describe } from '../errors.js'
import type { AgentEvent } from '../events.js'
import { isParentLink } from '../subagents/childLogs.js'
import { fork } from '../timeTravel.js'
import { startedSubagent } from './tree.js'
import type { HubOptions, SessionStore } from './types.js'

interface Planned {
  old_id: string
  new_id: string
  prefix: AgentEvent[]
  children: Planned[]
}

/** The events of `events` before the time `until` (null: all), as a prefix. */
const before = (events: AgentEvent[], until: string | null): AgentEvent[] => {
  if (until === null) return events
  let n = 0
  while (n < events.length && events[n].created_at < until) n++
  return events.slice(0, n)
}

/** The sub-agent sessions started in `prefix`, each cut before `until`; those no longer stored, or with no event by then, are left out. */
const plan = async (store: SessionStore, old_id: string, prefix: AgentEvent[], new_id: string, until: string | null): Promise<Planned> => {
  const children: Planned[] = []
  for (const event of prefix) {
    const child = startedSubagent(event)
    if (!child) continue
    let events: AgentEvent[]
    try {
      events = await store.read(child)
    } catch (error) {
      if (error instanceof AgentError && error.code === 'NOT_FOUND') continue
      throw error
    }
    const cut = before(events, until)
    if (cut.length) children.push(await plan(store, child, cut, systemClock.id(), until))
  }
  return { old_id, new_id, prefix, children }
}

/** The prefix with the links to forked sessions pointing at their forks. */
const relink = (prefix: AgentEvent[], ids: Map<string, string>): AgentEvent[] =>
  prefix.map((event) => {
    const { child_session_id, parent } = event.metadata
    const child = typeof child_session_id === 'string' ? ids.get(child_session_id) : undefined
    const parentId = isParentLink(parent) ? ids.get(parent.session_id) : undefined
    if (!child && !parentId) return event
    return { ...event, metadata: { ...event.metadata, ...(child && { child_session_id: child }), ...(parentId && isParentLink(parent) && { parent: { ...parent, session_id: parentId } }) } }
  })

/**
 * Forks session `session_id` of `store` at event `seq` with its sub-agent sessions; resolves with
 * the new root session's id. `agent` makes each fork's agent options (the hub's `agent`).
 */
export const forkTree = async (store: SessionStore, session_id: string, seq: number, agent: HubOptions['agent']): Promise<string> => {
  const events = await store.read(session_id)
  if (!Number.isInteger(seq) || seq < 0 || seq > events.length)
    throw new AgentError('INVALID_INPUT', `A fork needs a seq from 0 to ${events.length} (the session's last event); received ${describe(seq)}.`)
  const root = await plan(store, session_id, events.slice(0, seq), systemClock.id(), events[seq]?.created_at ?? null)
  const ids = new Map<string, string>()
  const collect = (p: Planned) => {
    ids.set(p.old_id, p.new_id)
    p.children.forEach(collect)
  }
  collect(root)
  const write = async (p: Planned, parent: string | null) => {
    for (const child of p.children) await write(child, p.new_id)
    const prefix = relink(p.prefix, ids)
    const link = parent === null ? undefined : prefix.find((e) => e.type === 'REPLY_START')?.metadata.parent
    await store.create({ session_id: p.new_id, metadata: { forked_from: p.old_id, from_seq: prefix.length, ...(link !== undefined && { parent: link }) } })
    const log = await store.open(p.new_id)
    const forked = fork(prefix, prefix.length, { ...(await agent(p.new_id)), log, session_id: p.new_id })
    await forked.close()
  }
  await write(root, null)
  return root.new_id
}
