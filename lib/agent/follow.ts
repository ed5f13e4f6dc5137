// Two pieces of an agent's life kept out of agent.ts: following a reply that a sub-agent's input
// resumes (the run ends on REPLY_END or when nothing in the tree runs), and closing an agent (its
// reply stopped, its tools and sub-agents closed, its log released).
import { filter, firstValueFrom, merge } from 'rxjs'
import { AgentError } from '../core/errors.js'
import type { AgentEvent } from '../core/events.js'
import type { LogStore } from '../core/log.js'
import type { Store } from '../core/store.js'
import { descendantEvents$ } from '../subagents/descendants.js'
import { treeRunning } from '../subagents/tree.js'
import type { TreeMember } from '../subagents/links.js'
import { checkReplyOptions } from './options.js'
import type { ReplyHost, ReplyOptions } from './replyOptions.js'
import { ReplyRun } from './replyRun.js'
import type { Tool } from './tools.js'

/** What these need of the agent (structural, so this module imports no agent). */
interface Host extends ReplyHost, TreeMember {
  cancel(reply_id: string): void
  children(): { close(): Promise<void> }[]
}

/**
 * Resumes the sub-agent `owner` with `input` and follows `agent`'s reply, which its results resume.
 * That reply hears nothing while the sub-agents work, so the run also ends when nothing in the tree runs.
 */
export const followDescendant = (agent: Host, store: Store, owner: { dispatch(input: AgentEvent): void }, input: AgentEvent, options: ReplyOptions): ReplyRun => {
  checkReplyOptions(options)
  const run = new ReplyRun(agent, store, () => owner.dispatch(input), options)
  const settle = () => queueMicrotask(() => {
    if (!treeRunning(agent)) run.settle()
    if (run.over) activity.unsubscribe()
  })
  const activity = merge(agent.events$, descendantEvents$(agent)).subscribe(settle)
  settle()
  return run
}

/** Agent.close: interrupts a running reply and waits for its end, closes the tools (each `close()` once) and sub-agents, then releases the log. */
export const closeAgent = async (agent: Host, store: Store, logStore: LogStore, tools: ReadonlyMap<string, Tool>): Promise<void> => {
  if (agent.state.status === 'running' && !store.failure) {
    agent.cancel(agent.state.reply_id!)
    await firstValueFrom(merge(store.state$.pipe(filter((s) => s.status !== 'running')), store.failure$), { defaultValue: null })
  }
  const closers = new Set([...tools.values()].flatMap((tool) => (tool.close ? [tool.close] : [])))
  // The sub-agents it ran are closed with it (their tools and logs released too).
  const closing = Promise.allSettled([...[...closers].map(async (close) => close()), ...agent.children().map((child) => child.close())])
  store.fail(new AgentError('CLOSED', 'The agent is closed; create a new agent to go on.'))
  await logStore.close()
  await closing
}
