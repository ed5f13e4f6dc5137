// Planning the fork of a tree of sessions, pure: the root's log is kept up to event `seq`, and each
// sub-agent session that a kept event started (TOOL_RESULT_START `metadata.child_session_id`) is
// kept as it was at that point, recursively: the events of its log made before the root's event
// seq + 1 (all of them when the root is forked at its last event). "Made before" is exact: the
// events of a tree are made by the process that owns its root, with one clock whose ids count up
// (idOrder in lib/core/clock.ts), at no cost per event; events whose ids one clock did not make (a
// failover between processes, custom clocks) are ordered by their times, strictly earlier. Every
// session kept gets a new id and the links are rewritten to the new ids (the calls'
// `metadata.child_session_id`, the sub-agents' REPLY_START `metadata.parent`). A call whose
// sub-agent had made no event by then (or whose log is not found) names a new id with no fork, so
// no link of the fork points into the original tree. The planner yields each session id it needs
// and is resumed with that session's log (or null): planSync and planAsync drive it over a reader.
import { idOrder } from '../core/clock.js'
import type { AgentEvent } from '../core/events.js'
import { isParentLink, startedSubagent, type ParentLink } from '../subagents/childLogs.js'
import { enterLink, pointsBack } from '../subagents/linkWalk.js'

/** A session of the tree and its fork. */
export interface ForkedSession {
  from_session_id: string
  session_id: string
  /** The events the fork starts from: the kept ones, their links naming the forks. */
  events: AgentEvent[]
  /** The call the fork runs as a sub-agent (its REPLY_START `metadata.parent`, rewritten), or null for the root. */
  parent: ParentLink | null
  /** The forks of the sub-agent sessions it started, oldest first. */
  children: ForkedSession[]
}

/** The planner: yields the session ids whose logs it needs, returns the forked tree. */
export type ForkPlanner = Generator<string, ForkedSession, readonly AgentEvent[] | null>

/** True when `event` was made before `point`: by their ids when one clock made both, else by their times. */
export const madeBefore = (event: AgentEvent, point: AgentEvent): boolean =>
  (idOrder(event.id, point.id) ?? (event.created_at < point.created_at ? -1 : 1)) < 0

/** The first events of `events` made before `point` (null: all of them). */
const keptUntil = (events: readonly AgentEvent[], point: AgentEvent | null): AgentEvent[] => {
  if (point === null) return [...events]
  let n = 0
  while (n < events.length && madeBefore(events[n], point)) n++
  return events.slice(0, n)
}

/**
 * Plans the fork of session `from_session_id` (its log `events`) at event `seq` with its sub-agent
 * sessions; `newId` makes the forks' session ids (`session_id`: the root fork's, if given).
 */
export function* planTreeFork(from_session_id: string, events: readonly AgentEvent[], seq: number, newId: () => string, session_id = newId()): ForkPlanner {
  const point = events[seq] ?? null
  const ids = new Map<string, string>([[from_session_id, session_id]])
  function* plan(from: string, to: string, kept: AgentEvent[], depth = 0): Generator<string, ForkedSession, readonly AgentEvent[] | null> {
    const children: ForkedSession[] = []
    for (const event of kept) {
      const child = startedSubagent(event)
      if (!child) continue
      // Each session is forked once (`ids` is the walk's visited set); a link back into the tree is a crafted log.
      if (ids.has(child)) enterLink(new Set(ids.keys()), child, depth + 1, 'Forking a tree of sessions')
      enterLink(new Set(), child, depth + 1, 'Forking a tree of sessions')
      const child_id = newId()
      ids.set(child, child_id)
      const log = yield child
      // A session whose first REPLY_START does not name this call as its parent is another tree's: not forked, as a missing one.
      const linked = log && event.type === 'TOOL_RESULT_START' && pointsBack(log.find((e) => e.type === 'REPLY_START')?.metadata.parent, from, event.tool_call_id)
      const childKept = log && linked ? keptUntil(log, point) : []
      if (childKept.length) children.push(yield* plan(child, child_id, childKept, depth + 1))
    }
    return { from_session_id: from, session_id: to, events: kept, parent: null, children }
  }
  const root = yield* plan(from_session_id, session_id, events.slice(0, seq))
  const relinked = (session: ForkedSession, isRoot: boolean): ForkedSession => {
    const events = relink(session.events, ids)
    const link = isRoot ? undefined : events.find((e) => e.type === 'REPLY_START')?.metadata.parent
    return { ...session, events, parent: isParentLink(link) ? link : null, children: session.children.map((c) => relinked(c, false)) }
  }
  return relinked(root, true)
}

/** The events with the links to forked sessions naming their forks. */
const relink = (events: AgentEvent[], ids: ReadonlyMap<string, string>): AgentEvent[] =>
  events.map((event) => {
    const { child_session_id, parent } = event.metadata
    const child = typeof child_session_id === 'string' ? ids.get(child_session_id) : undefined
    const parentId = isParentLink(parent) ? ids.get(parent.session_id) : undefined
    if (!child && !parentId) return event
    return { ...event, metadata: { ...event.metadata, ...(child && { child_session_id: child }), ...(parentId && isParentLink(parent) && { parent: { ...parent, session_id: parentId } }) } }
  })

/** Runs the planner over a reader of logs at hand. */
export const planSync = (planner: ForkPlanner, read: (session_id: string) => readonly AgentEvent[] | null): ForkedSession => {
  let step = planner.next()
  while (!step.done) step = planner.next(read(step.value))
  return step.value
}

/** Runs the planner over a reader of stored logs. */
export const planAsync = async (planner: ForkPlanner, read: (session_id: string) => Promise<readonly AgentEvent[] | null>): Promise<ForkedSession> => {
  let step = planner.next()
  while (!step.done) step = planner.next(await read(step.value))
  return step.value
}

/** The sessions of the forked tree, each after its sub-agents (the order their logs are written in, so a cut reply is closed deepest first). */
export const deepestFirst = (root: ForkedSession): ForkedSession[] => [...root.children.flatMap(deepestFirst), root]
