import { copyFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { agentTool, callTool, createAgent, say, scriptedModel } from '../../lib/index.js'
import { fileLog } from '../../lib/node.js'
import { probe, slowTool, type ToolProbe } from '../helpers/fixtures.js'
import { askingTool } from '../helpers/hitl.js'
import { checkTree, treeOf } from '../helpers/tree.js'
import { crashCopy, tempDir } from '../log/helpers/files.js'

const test = suite('subagents/revive')

/** A scripted model that calls `calls` first and answers `answer` once the call has its result (so a restarted process goes on where the log is). */
const model = (calls: ReturnType<typeof callTool>, answer: string) =>
  scriptedModel([(request) => (JSON.stringify(request.messages).includes('"tool_result"') ? say(answer) : calls)], { onExhausted: 'repeat-last' })

/** lead -> mid -> leaf, every log a file in `dir`; the leaf asks before deleting. Each call builds the agents a process would. */
const tree = (dir: string, p: ToolProbe) => {
  const logOf = (id: string) => fileLog(join(dir, `${id}.jsonl`))
  const leaf = agentTool({
    name: 'dig', description: 'Digs', log: logOf,
    agent: () => ({ name: 'Leaf', tools: [askingTool(p)], model: model([...say('Deleting.'), ...callTool('d1', 'delete_file', { path: '/a' })], 'Deleted.') }),
  })
  const mid = agentTool({ name: 'research', description: 'R', log: logOf, agent: () => ({ name: 'Mid', tools: [leaf], model: model(callTool('m1', 'dig', { task: 'dig' }), 'Dug.') }) })
  const logPath = join(dir, 'root.jsonl')
  return createAgent({ name: 'Lead', tools: [mid], log: fileLog(logPath), model: model(callTool('c1', 'research', { task: 'go' }), 'Done.') })
}

const parkedTree = async () => {
  const dir = tempDir()
  const first = tree(dir, probe())
  await first.reply('go')
  const leaf = first.children()[0].children()[0]
  assert.is(leaf.state.status, 'paused')
  await first.close()
  return { dir, session_id: first.session_id, leaf_session: leaf.session_id }
}

test('a tree parked in one process is answered from its root in the next: the sub-agents reopen from their logs', async () => {
  const { dir, leaf_session } = await parkedTree()
  const p = probe()
  const root = tree(dir, p)
  assert.is(root.state.status, 'paused')
  const reply = await root.approve('d1')
  assert.is(reply.finished_reason, 'completed')
  assert.equal(p.started.map((s) => s.id), ['d1'])
  assert.is(root.children()[0].children()[0].session_id, leaf_session, 'the same sub-agent session goes on')
  assert.match(JSON.stringify(root.children()[0].state.context.at(-1)), /Deleted\./)
  for (const agent of treeOf(root)) assert.is(agent.state.status, 'idle')
  checkTree(root)
  await root.close()
})

test('interrupting a reopened parked root closes every pending call of the tree, deepest first', async () => {
  const { dir } = await parkedTree()
  const root = tree(dir, probe())
  const mid = root.children()[0]
  const leaf = mid?.children()[0]
  assert.ok(leaf, 'the parked sub-agents were reopened with their parent')
  const order: string[] = []
  for (const agent of [root, mid, leaf]) agent.events$.subscribe((e) => e.type === 'REPLY_END' && order.push(`${agent.name} ${e.finished_reason}`))
  await root.interrupt()
  assert.equal(order, ['Leaf interrupted', 'Mid interrupted', 'Lead interrupted'])
  checkTree(root)
  await root.close()
})

test('a sub-agent answered on its own session while its parent was closed answers the parent once the tree reopens', async () => {
  const { dir, leaf_session } = await parkedTree()
  // Another process approves the leaf on its own session.
  const p = probe()
  const leaf = createAgent({ name: 'Leaf', tools: [askingTool(p)], session_id: leaf_session, log: fileLog(join(dir, `${leaf_session}.jsonl`)), model: model([], 'Deleted.') })
  await leaf.approve('d1')
  await leaf.close()
  const root = tree(dir, probe())
  for (let i = 0; i < 500 && root.state.status !== 'idle'; i++) await new Promise((resolve) => setTimeout(resolve, 2))
  assert.is(root.state.status, 'idle')
  assert.match(JSON.stringify(root.state.context.at(-1)), /Done\./)
  checkTree(root)
  await root.close()
})

test('crash = interrupt for trees: a tree cut while its leaf runs is closed on reopening, deepest first, every call answered', async () => {
  const dir = tempDir()
  const p = probe()
  const logOf = (at: string) => (id: string) => fileLog(join(at, `${id}.jsonl`))
  const build = (at: string) => {
    const leaf = agentTool({ name: 'dig', description: 'Digs', log: logOf(at), agent: () => ({ name: 'Leaf', tools: [slowTool(p, { ms: 60_000 })], model: model([...say('Digging.'), ...callTool('s1', 'slow', { x: 'a' })], 'Dug.') }) })
    const mid = agentTool({ name: 'research', description: 'R', log: logOf(at), agent: () => ({ name: 'Mid', tools: [leaf], model: model(callTool('m1', 'dig', { task: 'dig' }), 'Done digging.') }) })
    return createAgent({ name: 'Lead', tools: [mid], log: fileLog(join(at, 'root.jsonl')), model: model(callTool('c1', 'research', { task: 'go' }), 'Done.') })
  }
  const first = build(dir)
  const replied = first.reply('go')
  while (p.started.length === 0) await new Promise((resolve) => setTimeout(resolve, 1))
  // The files as a SIGKILL would leave them: every log of the tree ends inside a running reply.
  const after = tempDir()
  for (const name of readdirSync(dir).filter((f) => f.endsWith('.jsonl'))) copyFileSync(join(dir, name), join(after, name))
  await first.interrupt()
  await replied
  await first.close()
  const root = build(after)
  const mid = root.children()[0]
  const leaf = mid?.children()[0]
  assert.ok(leaf, 'the cut sub-agents were reopened')
  for (const agent of [leaf, mid, root]) {
    assert.is(agent.state.status, 'idle', `${agent.name} is closed`)
    const last = agent.log.at(-1)!
    assert.ok(last.type === 'REPLY_END' && last.finished_reason === 'interrupted', `${agent.name}'s log ends REPLY_END(interrupted)`)
  }
  assert.ok(leaf.log.at(-1)!.created_at <= mid.log.at(-1)!.created_at && mid.log.at(-1)!.created_at <= root.log.at(-1)!.created_at, 'deepest first')
  checkTree(root)
  await root.close()
})

test('crash = interrupt for trees: a parked sub-agent under a reply cut while a sibling tool runs is interrupted with its tree on reopening', async () => {
  const dir = tempDir()
  const p = probe()
  const logOf = (at: string) => (id: string) => fileLog(join(at, `${id}.jsonl`))
  const build = (at: string) => {
    const leaf = agentTool({ name: 'dig', description: 'Digs', log: logOf(at), agent: () => ({ name: 'Leaf', tools: [askingTool(p)], model: model(callTool('d1', 'delete_file', { path: '/a' }), 'Deleted.') }) })
    const mid = agentTool({ name: 'research', description: 'R', concurrencySafe: true, log: logOf(at), agent: () => ({ name: 'Mid', tools: [leaf], model: model(callTool('m1', 'dig', { task: 'dig' }), 'Dug.') }) })
    const calls = [...callTool('c1', 'research', { task: 'go' }), ...callTool('c2', 'slow', { x: 'a' })]
    return createAgent({ name: 'Lead', tools: [mid, slowTool(p, { ms: 60_000, safe: true })], log: fileLog(join(at, 'root.jsonl')), model: model(calls, 'Done.') })
  }
  const first = build(dir)
  const replied = first.reply('go')
  while (!(p.started.length > 0 && first.children()[0]?.children()[0]?.state.status === 'paused')) await new Promise((resolve) => setTimeout(resolve, 1))
  // The process dies while the leaf waits for its approval and the lead's slow tool runs.
  const after = crashCopy(dir)
  await first.interrupt()
  await replied
  await first.close()
  const root = build(after)
  for (let i = 0; i < 500 && treeOf(root).some((a) => a.state.status !== 'idle'); i++) await new Promise((resolve) => setTimeout(resolve, 2))
  assert.is(treeOf(root).length, 3, 'the parked sub-agents were reopened')
  for (const agent of treeOf(root)) {
    assert.is(agent.state.status, 'idle', `${agent.name} is closed`)
    const last = agent.log.at(-1)!
    assert.ok(last.type === 'REPLY_END' && last.finished_reason === 'interrupted', `${agent.name}'s log ends REPLY_END(interrupted)`)
  }
  checkTree(root)
  await root.close()
})

test.run()
