// Reading a tree of agents in one process, from each agent's own state: the calls the tree waits
// for (a paused sub-agent call stands for the calls its child waits for), which agent owns a call
// or a reply, whether anything in the tree still runs, and its usage summed.
import { AgentError } from '../core/errors.js'
import { UsageSchema, zeroUsage, type Msg, type Usage } from '../core/messages.js'
import type { WaitingCall } from '../agent/text.js'
import type { AgentState } from '../../reducers/state.js'
import { childLinks, type TreeMember } from './links.js'
import { enterLink } from './linkWalk.js'


/** The sub-agent session of each call of the state's reply in progress (or its last reply), by call id (its result's `metadata.child_session_id`). */
export const replyChildren = (state: AgentState): Map<string, string> => {
  // An ended reply's message is the last of the context (an interrupted reply with no output has none).
  const last = state.context[state.context.length - 1]
  const msg = state.reply_msg ?? (last?.id === state.reply_id ? last : null)
  const children = new Map<string, string>()
  for (const block of msg?.content ?? []) {
    const child = block.type === 'tool_result' ? block.metadata.child_session_id : undefined
    if (typeof child === 'string') children.set(block.id, child)
  }
  return children
}

/**
 * What the tree of session `session_id` (in state `state`) waits for: its own waiting calls, except
 * that a sub-agent call is replaced by what its sub-agent waits for when that sub-agent is paused
 * (recursively), and left out when it runs (nothing there to answer yet). `stateOf` gives a
 * sub-agent's state (undefined when it is not at hand: the call is listed as it is).
 */
export const waitingInTree = (session_id: string, state: AgentState, stateOf: (session_id: string) => AgentState | undefined, seen = new Set<string>(), depth = 0): WaitingCall[] => {
  enterLink(seen, session_id, depth, 'Reading what a tree waits for')
  if (state.status !== 'paused') return []
  const children = replyChildren(state)
  return state.waiting_for.flatMap((call) => {
    const child = children.get(call.id)
    const childState = child === undefined ? undefined : stateOf(child)
    if (!childState) return [{ ...call, session_id }]
    return waitingInTree(child!, childState, stateOf, seen, depth + 1)
  })
}

/** What the tree under `agent` waits for, from the agents of its tree in this process (see waitingInTree). */
export const treeWaitingFor = (agent: TreeMember): WaitingCall[] =>
  waitingInTree(agent.session_id, agent.state, (id) => findSession(agent, id)?.state)

/** The agent of the tree (`root` itself or a descendant) whose current reply is `reply_id`. */
export const ownerOfReply = <A extends TreeMember>(root: A, reply_id: string): A | undefined => {
  if (root.state.reply_id === reply_id) return root
  for (const { agent } of pendingChildren(root)) {
    const owner = ownerOfReply(agent, reply_id)
    if (owner) return owner
  }
  return undefined
}

/** A waiting call named by its id, or by its id and session (call ids are unique within a reply only). */
export type CallRef = string | { readonly id: string; readonly session_id?: string }

/**
 * The agent of the tree whose paused reply waits for the call `ref` (as treeWaitingFor lists it),
 * or undefined; an id that waits in several sessions is an error naming them.
 */
export const ownerOfCall = <A extends TreeMember>(root: A, ref: CallRef): A | undefined => {
  const { id, session_id } = typeof ref === 'string' ? { id: ref, session_id: undefined } : ref
  const found = treeWaitingFor(root).filter((c) => c.id === id && (session_id === undefined || c.session_id === session_id))
  if (found.length > 1)
    throw new AgentError('INVALID_INPUT', `Call ${id} waits in ${found.length} sessions (${found.map((c) => c.session_id).join(', ')}); name it with its session: { id: '${id}', session_id } from waiting_for.`)
  return found[0] && findSession(root, found[0].session_id)
}

/** True while some agent of the tree has a reply running. */
export const treeRunning = (root: TreeMember): boolean =>
  root.state.status === 'running' || pendingChildren(root).some(({ agent }) => treeRunning(agent))

/** The agent of the tree with session `session_id`. */
export const findSession = <A extends TreeMember>(root: A, session_id: string): A | undefined => {
  if (root.session_id === session_id) return root
  for (const { agent } of childLinks(root)) {
    const found = findSession(agent, session_id)
    if (found) return found
  }
  return undefined
}

/** The children whose reply has not ended (running or paused). */
const pendingChildren = <A extends TreeMember>(parent: A) => childLinks(parent).filter(({ agent }) => agent.state.status !== 'idle')

/** The usage of every agent of the tree under `root` (itself included), summed. */
export const treeUsage = (root: TreeMember): AgentState['usage'] => {
  const total = { ...root.state.usage }
  for (const { agent } of childLinks(root)) {
    const usage = treeUsage(agent)
    for (const key of Object.keys(total) as (keyof typeof total)[]) total[key] += usage[key]
  }
  return total
}

/**
 * A finished reply's usage with its sub-agents' (each sub-agent call's result records its child's
 * tree usage in `metadata.usage`), from the reply's message alone; null when it has no sub-agent call.
 */
export const replyTreeUsage = (msg: Msg): Usage | null => {
  const children = msg.content.flatMap((b) => (b.type === 'tool_result' && typeof b.metadata.child_session_id === 'string' && isUsage(b.metadata.usage) ? [b.metadata.usage] : []))
  if (!children.length) return null
  const total = { ...(msg.usage ?? zeroUsage()) }
  for (const usage of children) for (const key of Object.keys(total) as (keyof Usage)[]) total[key] += usage[key]
  return total
}

const isUsage = (value: unknown): value is Usage => UsageSchema.safeParse(value).success
