// A tree of scripted agents for the fork specs, a clock that records the order it made ids in (the
// order the tree's events were created: the oracle the specs compare the forks with, never the
// code under test's own rule), and the checks of a tree forked at a seq of its root.
import * as assert from 'uvu/assert'
import { createSystemClock } from '../../../lib/core/clock.js'
import { agentTool, callTool, checkLog, replay, say, scriptedModel, type AgentEvent, type AgentOptions, type Clock } from '../../../lib/index.js'

/** A system clock (its ids) that records the rank of each id it makes; `now`: a fixed time, so every event shares one millisecond. */
export const recordingClock = (now?: string) => {
  const system = createSystemClock()
  const rank = new Map<string, number>()
  const clock: Clock = {
    id: () => {
      const id = system.id()
      rank.set(id, rank.size)
      return id
    },
    now: now === undefined ? () => system.now() : () => now,
  }
  return { clock, rank }
}

/** Chunks 1 ms apart, so the sub-agents' events interleave with their parents'. */
const streamed = { chunkDelayMs: 1 }

/**
 * lead -> research (two calls in parallel) -> deep: the lead's first reply runs two research
 * sub-agents, each running a deep one; its second reply runs one more research sub-agent. Every
 * model streams its chunks 1 ms apart and a sub-agent's text reaches its parent's call at once, so
 * the lead records events while sub-agents of each depth run.
 */
export const leadOptions = (clock: Clock): AgentOptions => {
  const deep = agentTool({ name: 'deep', description: 'D', textIntervalMs: 0, agent: () => ({ name: 'Deep', clock, model: scriptedModel([say('Deep answer.', 3)], streamed) }) })
  const research = agentTool({
    name: 'research', description: 'R', concurrencySafe: true, textIntervalMs: 0,
    // Task b's text streams into the lead while task a's deep sub-agent runs.
    agent: ({ task }) => ({ name: 'Researcher', clock, tools: [deep], model: scriptedModel([[...say(task === 'b' ? 'Looking further, and further.' : 'Looking.', task === 'b' ? 20 : 2), ...callTool('d1', 'deep', { task: 'dig' })], say('Found.', 2)], streamed) }),
  })
  const model = scriptedModel([
    [...callTool('c1', 'research', { task: 'a' }), ...callTool('c2', 'research', { task: 'b' })],
    say('Done.'),
    callTool('c3', 'research', { task: 'c' }),
    say('Done again.'),
  ], streamed)
  return { name: 'Lead', clock, model, tools: [research] }
}

type Read = (session_id: string) => readonly AgentEvent[] | null

const childOf = (event: AgentEvent): string | undefined => (event.type === 'TOOL_RESULT_START' && typeof event.metadata.child_session_id === 'string' ? event.metadata.child_session_id : undefined)

/** The log passes strict replay (through JSON) and the invariant checker; nothing in it runs. */
const checkOwn = (events: readonly AgentEvent[], name: string) => {
  const log = JSON.parse(JSON.stringify(events)) as AgentEvent[]
  const state = replay(log, undefined, { strict: true })
  assert.equal(checkLog(log).violations, [], `${name} keeps the invariants (every tool call answered)`)
  assert.is(state.status, 'idle', `${name}: a reply cut while running is closed`)
}

/**
 * Checks the fork `forked` (its session and log; its sub-agents' logs by `readFork`) of the root
 * whose log is `original` (its sub-agents' by `readOriginal`) at seq `seq`: each forked log passes
 * strict replay and checkLog with nothing left running (a cut reply closed
 * in each log before its parent's), links name the forks (no original session
 * id anywhere but in the fork markers), and each sub-agent's fork holds exactly the events its
 * original created before the root's event seq + 1 (by `rank`), then the fork marker and its close.
 * Returns the forks (each forked session id with its original) and the depth of each log cut while running.
 */
export const checkForkedTree = (original: readonly AgentEvent[], forked: { session_id: string; log: readonly AgentEvent[] }, seq: number, readOriginal: Read, readFork: Read, rank: ReadonlyMap<string, number>): { forks: Map<string, string>; cutDepths: number[] } => {
  const point = original[seq]
  const before = (event: AgentEvent) => point === undefined || rank.get(event.id)! < rank.get(point.id)!
  const originalIds = new Set<string>()
  const forks = new Map<string, string>()
  const cutDepths: number[] = []
  const walk = (from: readonly AgentEvent[], fork: readonly AgentEvent[], kept: number, name: string, session: string, parent: string | null, depth: number): number | null => {
    const label = `${name} forked at root seq ${seq}`
    checkOwn(fork, label)
    assert.equal(fork.slice(0, kept).map((e) => e.id), from.slice(0, kept).map((e) => e.id), `${label}: its kept events`)
    const marker = fork[kept]
    assert.ok(marker?.type === 'CUSTOM' && marker.name === 'agentlog.fork', `${label}: the fork marker after the kept events`)
    for (const event of fork.slice(kept + 1)) assert.not.ok(rank.get(event.id)! < rank.get(marker.id)!, `${label}: only the close after the marker`)
    // The rank of this log's close when the fork cut its reply while running.
    const closed = replay(from.slice(0, kept)).status === 'running' ? rank.get(fork.at(-1)!.id)! : null
    if (closed !== null) cutDepths.push(depth)
    const start = fork.find((e) => e.type === 'REPLY_START')
    if (parent !== null) assert.is((start?.metadata.parent as { session_id?: string } | undefined)?.session_id, parent, `${label}: its REPLY_START names the forked parent`)
    forks.set(session, name)
    fork.slice(0, kept).forEach((event, i) => {
      const childId = childOf(event)
      if (!childId) return
      const originalChild = childOf(from[i])!
      originalIds.add(originalChild)
      assert.is.not(childId, originalChild, `${label}: the call ${event.type === 'TOOL_RESULT_START' && event.tool_call_id} names a new session`)
      const childLog = readOriginal(originalChild) ?? []
      const expected = childLog.filter(before)
      assert.equal(expected, childLog.slice(0, expected.length), 'the events created before a point are a prefix of each log')
      const childFork = readFork(childId)
      if (expected.length === 0) return void assert.not.ok(childFork, `${label}: a sub-agent with no event by then has no fork`)
      assert.ok(childFork, `${label}: the sub-agent ${originalChild} is forked`)
      const childClosed = walk(childLog, childFork, expected.length, originalChild, childId, session, depth + 1)
      if (closed !== null && childClosed !== null) assert.ok(childClosed < closed, `${label}: the sub-agent's cut reply closed before its parent's`)
    })
    return closed
  }
  originalIds.add(replay(original).session_id!)
  walk(original, forked.log, seq, replay(original).session_id!, forked.session_id, null, 0)
  // The links are in the events' metadata (a REPLY_START's `session_id` names the session its reply started in).
  for (const [session] of forks) {
    const text = JSON.stringify((readFork(session) ?? forked.log).map((e) => e.metadata))
    for (const id of originalIds) assert.not.ok(text.includes(JSON.stringify(id)), `the fork ${session} links no original session (${id})`)
  }
  return { forks, cutDepths }
}
