// A tree of agents served by a hub, for the specs of sub-agents as sessions of a hub's store (memory,
// directory, PostgreSQL): a lead whose `research` sub-agent asks before deleting a file. Every agent's
// model answers from its context, so a tree reopened by another hub goes on where its logs are.
import * as assert from 'uvu/assert'
import { agentTool, callTool, checkLog, createHub, replay, say, scriptedModel, type AgentEvent, type Hub, type SessionStore } from '../../../lib/index.js'
import type { ToolProbe } from '../../helpers/fixtures.js'
import { askingTool } from '../../helpers/hitl.js'

/** Calls `calls` first; answers `answer` once the call has its result. */
export const answering = (calls: ReturnType<typeof callTool>, answer: string) =>
  scriptedModel([(request) => (JSON.stringify(request.messages).includes('"tool_result"') ? say(answer) : calls)], { onExhausted: 'repeat-last' })

/** lead -> research (Researcher) -> delete_file, which asks. */
export const treeHub = (store: SessionStore, p: ToolProbe, options: { sweepMs?: number | false } = {}): Hub => {
  const research = agentTool({
    name: 'research', description: 'R',
    agent: () => ({ name: 'Researcher', tools: [askingTool(p)], model: answering([...say('Deleting.'), ...callTool('d1', 'delete_file', { path: '/a' })], 'Deleted.') }),
  })
  return createHub({ store, sweepMs: options.sweepMs ?? false, agent: () => ({ name: 'Lead', tools: [research], model: answering(callTool('c1', 'research', { task: 'go' }), 'Done.') }) })
}

/** Polls `check` until it holds (a loaded machine may be slow); fails with `what` after a while. */
export const eventually = async (what: string, check: () => Promise<boolean> | boolean, tries = 2000) => {
  for (let i = 0; i < tries; i++) {
    if (await check()) return
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
  assert.unreachable(`timed out waiting until ${what}`)
}

/** The log passes strict replay and the invariant checker on its own. */
export const checkStoredLog = (events: AgentEvent[], name: string) => {
  const log = JSON.parse(JSON.stringify(events)) as AgentEvent[]
  replay(log, undefined, { strict: true })
  assert.equal(checkLog(log).violations, [], `${name}'s log keeps the invariants`)
}

/** The sub-agent session of the call `tool_call_id` (default: the first sub-agent call) in a parent's log (its TOOL_RESULT_START). */
export const childOf = (events: AgentEvent[], tool_call_id?: string): string => {
  const start = events.find((e) => e.type === 'TOOL_RESULT_START' && typeof e.metadata.child_session_id === 'string' && (tool_call_id === undefined || e.tool_call_id === tool_call_id))
  const id = start?.metadata.child_session_id
  assert.type(id, 'string', `the call ${tool_call_id ?? ''} names its sub-agent's session`)
  return id as string
}

/** The sub-agent session of the first sub-agent call in a stored log, once that call has started; undefined until then. */
export const startedChild = async (store: SessionStore, session_id: string): Promise<string | undefined> => {
  const start = (await store.read(session_id)).find((e) => e.type === 'TOOL_RESULT_START' && typeof e.metadata.child_session_id === 'string')
  return start?.metadata.child_session_id as string | undefined
}

/**
 * A tree cut by a crash, as the next owner must leave it: every log ends REPLY_END(interrupted),
 * deepest first, passes strict replay, and each parent's sub-agent call has its result.
 */
/** `ids`: the root first, then each sub-agent one level deeper. */
export const checkClosedTree = async (store: SessionStore, ids: string[]) => {
  const ends: string[] = []
  for (const id of ids) {
    const events = await store.read(id)
    const last = events.at(-1)!
    assert.ok(last.type === 'REPLY_END' && last.finished_reason === 'interrupted', `${id}'s log ends REPLY_END(interrupted), not ${last.type}`)
    checkStoredLog(events, id)
    ends.push(last.created_at)
  }
  for (let i = 1; i < ends.length; i++) assert.ok(ends[i] <= ends[i - 1], 'closed deepest first')
  for (const id of ids.slice(0, -1)) {
    const events = await store.read(id)
    const call = events.find((e) => e.type === 'TOOL_RESULT_START' && typeof e.metadata.child_session_id === 'string')!
    assert.ok(events.some((e) => e.type === 'TOOL_RESULT_END' && e.tool_call_id === (call as { tool_call_id: string }).tool_call_id), `${id}'s sub-agent call has its result`)
  }
}
