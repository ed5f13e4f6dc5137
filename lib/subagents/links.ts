// The live links of a tree of agents in one process: which child agent runs which call of which
// parent, and how deep each agent sits. The logs record the same links (the child's first
// REPLY_START `metadata.parent`, the parent's TOOL_RESULT_START `metadata.child_session_id`); this registry
// only keeps the agent objects reachable from their parent (`agent.children()`), outside the
// agents' state. Keyed weakly by the parent, so a tree no one holds is collected whole.
import { Subject, type Observable } from 'rxjs'
import type { AgentEvent } from '../core/events.js'
import type { AgentState } from '../../reducers/state.js'

/** What the tree needs of an agent (an `Agent`; structural, so this module imports no agent). */
export interface TreeMember {
  readonly session_id: string
  readonly state: AgentState
  readonly events$: Observable<AgentEvent>
}

/** A child agent and the call of its parent it runs. */
export interface ChildLink<A extends TreeMember = TreeMember> {
  readonly agent: A
  readonly reply_id: string
  readonly tool_call_id: string
}

const links = new WeakMap<object, ChildLink[]>()
const linked = new WeakMap<object, Subject<ChildLink>>()
const depths = new WeakMap<object, number>()

/** Records that `link.agent` runs the call `link.tool_call_id` of `parent`, one level deeper. */
export const linkChild = (parent: TreeMember, link: ChildLink): void => {
  depths.set(link.agent, depthOf(parent) + 1)
  const list = links.get(parent)
  if (list) list.push(link)
  else links.set(parent, [link])
  linked.get(parent)?.next(link)
}

/** The children `parent` has run in this process, oldest first. */
export const childLinks = <A extends TreeMember>(parent: A): readonly ChildLink<A>[] => (links.get(parent) ?? []) as ChildLink<A>[]

/** Emits each child linked to `parent` from now on. */
export const childLinked$ = <A extends TreeMember>(parent: A): Observable<ChildLink<A>> => {
  let subject = linked.get(parent)
  if (!subject) linked.set(parent, (subject = new Subject<ChildLink>()))
  return subject as unknown as Observable<ChildLink<A>>
}

/** 0 for an agent no agentTool started, 1 for its children, and so on. */
export const depthOf = (agent: object): number => depths.get(agent) ?? 0

/** The child running the call `tool_call_id` of reply `reply_id` of `parent`, if it runs in this process. */
export const childOfCall = <A extends TreeMember>(parent: A, reply_id: string, tool_call_id: string): A | undefined =>
  childLinks(parent).find((l) => l.reply_id === reply_id && l.tool_call_id === tool_call_id)?.agent
