// Forking an agent with its sub-agents (timeTravel's fork given an agent): at every seq of the
// root, each sub-agent is forked as it was then (exactly the events it had created before the
// root's event seq + 1, also when the whole tree ran within one millisecond), new session ids,
// links rewritten, a cut reply closed deepest first; the sub-agents of the reply in progress are
// the fork's children(), every forked log is reopened by its id; the original tree is untouched.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createAgent, fork, type Agent, type AgentEvent } from '../../lib/index.js'
import { findSession } from '../../lib/subagents/tree.js'
import { checkTree } from '../helpers/tree.js'
import { checkForkedTree, leadOptions, recordingClock } from './helpers/forkedTree.js'

const test = suite('timeTravel/agentTree')

const treeOf = (root: Agent): Agent[] => [root, ...root.children().flatMap(treeOf)]

/** The sub-agent calls of the kept events that had started and had no result yet (a reply in progress). */
const openCalls = (events: readonly AgentEvent[]): string[] => {
  const ended = new Set(events.flatMap((e) => (e.type === 'TOOL_RESULT_END' ? [e.tool_call_id] : [])))
  return events.flatMap((e) => (e.type === 'TOOL_RESULT_START' && typeof e.metadata.child_session_id === 'string' && !ended.has(e.tool_call_id) ? [e.metadata.child_session_id] : []))
}

const forkEverySeq = async (now?: string) => {
  const { clock, rank } = recordingClock(now)
  const lead = createAgent(leadOptions(clock))
  assert.is((await lead.reply('go')).text, 'Done.')
  assert.is((await lead.reply('again')).text, 'Done again.')
  assert.is(treeOf(lead).length, 7, 'three research sub-agents, each with a deep one')
  const before = JSON.stringify(treeOf(lead).map((a) => a.log))
  const readOriginal = (id: string) => findSession(lead, id)?.log ?? null
  let forkedChildren = 0
  const cut = new Set<number>()
  for (let seq = 0; seq <= lead.log.length; seq++) {
    const forked = fork(lead, seq, leadOptions(clock))
    const readFork = (id: string) => forked.subagentLogs?.reopen(id)?.events ?? null
    const { forks, cutDepths } = checkForkedTree(lead.log, forked, seq, readOriginal, readFork, rank)
    forkedChildren += forks.size - 1
    cutDepths.forEach((d) => cut.add(d))
    // The sub-agents of the reply in progress are the fork's children, on the forked logs.
    const open = openCalls(forked.log.slice(0, seq)).filter((id) => forks.has(id))
    assert.equal(forked.children().map((c) => c.session_id), open, `seq ${seq}: children() lists the sub-agents of the reply in progress`)
    for (const child of treeOf(forked).slice(1)) assert.equal(child.log, readFork(child.session_id), `seq ${seq}: ${child.session_id} is on its forked log`)
    await forked.close()
  }
  assert.ok(forkedChildren > 0)
  assert.equal([...cut].sort(), [0, 1, 2], 'some forks cut a reply running at every depth')
  assert.is(JSON.stringify(treeOf(lead).map((a) => a.log)), before, 'the original tree is untouched')
  return { lead, rank }
}

test('an agent forked at every seq of its log forks its sub-agents as they were then', async () => {
  await forkEverySeq()
})

test('the cut is exact when the whole tree ran within one millisecond', async () => {
  const { lead } = await forkEverySeq('2026-01-01T00:00:00.000Z')
  assert.is(new Set(treeOf(lead).flatMap((a) => a.log.map((e) => e.created_at))).size, 1, 'one created_at for every event')
})

test('the fork goes on: its next reply runs new sub-agents, on its children() with the reopened ones', async () => {
  const { clock } = recordingClock()
  const lead = createAgent(leadOptions(clock))
  await lead.reply('go')
  // Cut while the lead waited for its two research calls' results.
  const seq = lead.log.findIndex((e) => e.type === 'TOOL_RESULT_END')
  const forked = fork(lead, seq, leadOptions(clock))
  const reopened = forked.children().map((c) => c.session_id)
  assert.is(reopened.length, 2, 'both research sub-agents of the cut reply')
  assert.is(forked.state.status, 'idle', 'the cut reply closed as interrupted')
  assert.is((await forked.reply('go on')).text, 'Done.')
  const children = forked.children()
  assert.equal(children.slice(0, 2).map((c) => c.session_id), reopened)
  assert.is(children.length, 4, 'two new research sub-agents')
  checkTree(forked)
})

test.run()
