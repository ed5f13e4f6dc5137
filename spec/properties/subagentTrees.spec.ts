// Random trees of sub-agents (depth <= 3, parallel children, asking, external and slow tools at
// random depths) stopped, answered and interrupted at random moments, from the root or from a
// child's own session. Afterwards every log of the tree passes strict replay, the invariant checker
// and the wire schemas, every call of a settled log is answered, and whenever the root is parked
// its waiting_for is what the children's logs say (derived here from the logs alone). And random
// trees whose process dies at a random moment (every log a file; the files as a SIGKILL leaves
// them), reopened from the root's log: every log of the tree closed and consistent.
import { join } from 'node:path'
import fc from 'fast-check'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { agentTool, callTool, checkLog, counterClock, createAgent, replay, say, scriptedModel, treeWaitingFor, type Agent, type AgentEvent, type LogStore, type Tool } from '../../lib/index.js'
import { fileLog } from '../../lib/node.js'
import { storedTreeWaiting } from '../../lib/hub/waiting.js'
import type { ParentLink } from '../../lib/subagents/childLogs.js'
import { readLogFile } from '../../lib/stores/file/read.js'
import { crashCopy, tempDir } from '../log/helpers/files.js'
import { probe, slowTool } from '../helpers/fixtures.js'
import { askingTool, externalTool } from '../helpers/hitl.js'
import { checkTree, treeOf } from '../helpers/tree.js'
import { propertiesOf } from './helpers/config.js'

const test = suite('properties/subagent-trees')
const property = propertiesOf(test)

type Node = { calls: Call[]; parallel: boolean }
type Call = 'ask' | 'external' | 'slow' | Node

const nodeArb = (depth: number): fc.Arbitrary<Node> => fc.record({
  calls: fc.array(depth < 3 ? fc.oneof({ weight: 3, arbitrary: fc.constantFrom<Call>('ask', 'external', 'slow') }, { weight: 2, arbitrary: nodeArb(depth + 1) }) : fc.constantFrom<Call>('ask', 'external', 'slow'), { minLength: 1, maxLength: 3 }),
  parallel: fc.boolean(),
})

type Action = { kind: 'approve' | 'deny' | 'submit' | 'interruptRoot' | 'interruptChild' | 'fromChild'; pick: number; delayMs: number }
const actionArb: fc.Arbitrary<Action> = fc.record({
  kind: fc.constantFrom('approve', 'deny', 'submit', 'interruptRoot', 'interruptChild', 'fromChild'),
  pick: fc.nat(20), delayMs: fc.integer({ min: 0, max: 4 }),
})

/**
 * The options of an agent playing `node`: one turn calling everything (in parallel or one by one),
 * then, once it has the results, an answer. `logOf`: its sub-agents' logs (files, to survive a crash).
 */
const optionsOf = (node: Node, path: string, logOf?: (session_id: string) => LogStore) => {
  const p = probe()
  const tools = new Map<string, Tool>()
  const chunks = node.calls.flatMap((call, i) => {
    const id = `${path}.${i}`
    if (call === 'ask') tools.set('delete_file', askingTool(p, { safe: node.parallel }))
    else if (call === 'external') tools.set('browser', externalTool({ safe: node.parallel }))
    else if (call === 'slow') tools.set('slow', slowTool(p, { ms: 3, safe: node.parallel }))
    else tools.set(`sub${i}`, agentTool({ name: `sub${i}`, description: 'Delegates', concurrencySafe: node.parallel, log: logOf, agent: () => optionsOf(call, id, logOf) }))
    const name = call === 'ask' ? 'delete_file' : call === 'external' ? 'browser' : call === 'slow' ? 'slow' : `sub${i}`
    return callTool(id, name, call === 'ask' ? { path: id } : call === 'external' ? { url: id } : call === 'slow' ? { x: id } : { task: id })
  })
  return { name: `A${path}`, clock: counterClock(`s${path}`), tools: [...tools.values()], model: scriptedModel([(request) => (JSON.stringify(request.messages.at(-1)).includes('"tool_result"') ? say(`done ${path}`) : chunks)], { onExhausted: 'repeat-last' }) }
}

type Link = { session_id: string; reply_id: string; tool_call_id: string }
const parentOf = (agent: Agent) => agent.log.find((e) => e.type === 'REPLY_START')?.metadata.parent as Link | undefined

/** What the root waits for, from the logs alone: a paused agent's waiting calls, a call some child's log says it runs replaced by what that child waits for. */
const waitingFromLogs = (root: Agent): string[] => {
  const agents = treeOf(root)
  const childOf = (agent: Agent, call: string) => agents.find((a) => {
    const link = parentOf(a)
    return link?.session_id === agent.session_id && link.reply_id === agent.state.reply_id && link.tool_call_id === call
  })
  const reachable = (agent: Agent): string[] => agent.state.status !== 'paused' ? [] : agent.state.waiting_for.flatMap((call) => {
    const child = childOf(agent, call.id)
    return child ? reachable(child) : [`${agent.session_id}:${call.id}`]
  })
  return reachable(root).sort()
}

const settled = async (root: Agent) => {
  for (let i = 0; i < 2000 && treeOf(root).some((a) => a.state.status === 'running'); i++) await new Promise((resolve) => setTimeout(resolve, 1))
}

property('random trees stopped, answered and interrupted at random moments keep every log consistent', 40, async (params) => {
  await fc.assert(fc.asyncProperty(nodeArb(0), fc.array(actionArb, { maxLength: 8 }), fc.oneof({ weight: 2, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.integer({ min: 0, max: 6 }) }), async (node, actions, stopAfterMs) => {
    const root = createAgent(optionsOf(node, 'r'))
    const replied = root.reply('go').catch(() => null)
    if (stopAfterMs !== null) {
      await new Promise((resolve) => setTimeout(resolve, stopAfterMs))
      await root.interrupt()
    }
    await replied
    await settled(root)
    for (const action of actions) {
      if (root.state.status !== 'paused') break
      const calls = treeWaitingFor(root)
      assert.equal(calls.map((c) => `${c.session_id}:${c.id}`).sort(), waitingFromLogs(root), "the root's waiting_for is what the logs say")
      const logOf = (id: string) => treeOf(root).find((a) => a.session_id === id)!.log
      const parentOf = async (id: string) => (logOf(id).find((e) => e.type === 'REPLY_START')?.metadata.parent ?? null) as ParentLink | null
      const folded = await storedTreeWaiting(async (id) => replay(logOf(id)), parentOf, root.session_id)
      assert.equal(folded, calls, 'a hub in another process reads the same from the logs (SessionHandle.waiting)')
      const call = calls[action.pick % calls.length]
      const owner = treeOf(root).find((a) => a.session_id === call.session_id)!
      const children = treeOf(root).slice(1).filter((a) => a.state.status !== 'idle')
      const target = action.kind === 'fromChild' ? owner : root
      const done = action.kind === 'interruptRoot' ? root.interrupt()
        : action.kind === 'interruptChild' && children.length ? children[action.pick % children.length].interrupt()
        : call.state === 'asking' ? (action.kind === 'deny' ? target.deny(call, 'no') : target.approve(call))
        : target.submitResult(call, 'ok')
      if (action.delayMs) {
        await new Promise((resolve) => setTimeout(resolve, action.delayMs))
        if (action.pick % 3 === 0) await root.interrupt()
      }
      await done.catch(() => null)
      await settled(root)
    }
    if (root.state.status === 'paused') await root.interrupt()
    await settled(root)
    for (const agent of treeOf(root)) assert.is.not(agent.state.status, 'running', `${agent.name} settled`)
    checkTree(root)
  }), params)
})

/** The logs of the tree rooted at `file` in `dir`, read from the files, following each call's sub-agent session. */
const treeFiles = (dir: string, file = 'root.jsonl'): { file: string; events: AgentEvent[] }[] => {
  const { events } = readLogFile(join(dir, file))
  const children = events.flatMap((e) => (e.type === 'TOOL_RESULT_START' && typeof e.metadata.child_session_id === 'string' ? [`${e.metadata.child_session_id}.jsonl`] : []))
  return [{ file, events }, ...children.flatMap((child) => treeFiles(dir, child))]
}

/** No reply of `events` runs, strict replay works, the invariants hold; unless it is parked, every call has its result. */
const checkClosedLog = (file: string, events: AgentEvent[]) => {
  const state = replay(events, undefined, { strict: true })
  assert.is.not(state.status, 'running', `${file}: no reply left running`)
  assert.equal(checkLog(events).violations, [], `${file} keeps the invariants`)
  if (state.status === 'paused') return
  const answered = new Set(events.flatMap((e) => (e.type === 'TOOL_RESULT_END' ? [e.tool_call_id] : [])))
  for (const e of events) if (e.type === 'TOOL_CALL_START') assert.ok(answered.has(e.tool_call_id), `${file}: call ${e.tool_call_id} is answered`)
}

property('random trees whose process dies at a random moment reopen from the root with every log closed and consistent', 15, async (params) => {
  await fc.assert(fc.asyncProperty(nodeArb(0), fc.oneof({ weight: 1, arbitrary: fc.constant(null) }, { weight: 3, arbitrary: fc.integer({ min: 0, max: 8 }) }), async (node, crashAfterMs) => {
    const dir = tempDir()
    const logsIn = (d: string) => (id: string) => fileLog(join(d, `${id}.jsonl`))
    const first = createAgent({ ...optionsOf(node, 'r', logsIn(dir)), log: fileLog(join(dir, 'root.jsonl')) })
    const replied = first.reply('go').catch(() => null)
    if (crashAfterMs === null) {
      await replied
      await settled(first)
    } else await new Promise((resolve) => setTimeout(resolve, crashAfterMs))
    // The process dies here: its files as they are, its locks left behind.
    const after = crashCopy(dir)
    await first.interrupt().catch(() => null)
    await replied
    await first.close()

    const root = createAgent({ ...optionsOf(node, 'r', logsIn(after)), log: fileLog(join(after, 'root.jsonl')) })
    await settled(root)
    for (const agent of treeOf(root)) assert.is.not(agent.state.status, 'running', `${agent.name} reopened settled`)
    if (root.state.status === 'paused') assert.equal(treeWaitingFor(root).map((c) => `${c.session_id}:${c.id}`).sort(), waitingFromLogs(root), "the reopened root's waiting_for is what the logs say")
    checkTree(root)
    for (const { file, events } of treeFiles(after)) checkClosedLog(file, events)
    // Stopping the reopened tree answers every call that waited.
    if (root.state.status === 'paused') await root.interrupt()
    await settled(root)
    for (const { file, events } of treeFiles(after)) {
      checkClosedLog(file, events)
      assert.is(replay(events).status, 'idle', `${file} idle once the reopened root is stopped`)
    }
    await root.close()
  }), params)
})

test.run()
