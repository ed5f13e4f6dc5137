import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { agentTool, approveEvent, callTool, counterClock, createAgent, say, scriptedModel, type Agent, type ScriptedTurn, type Tool, type ToolResultBlock } from '../../lib/index.js'
import { collect, probe, slowTool, type ToolProbe } from '../helpers/fixtures.js'
import { rejectsWithCode } from '../helpers/expect.js'
import { askingTool, externalTool } from '../helpers/hitl.js'
import { checkTree, firstOf, treeOf } from '../helpers/tree.js'

const test = suite('subagents/approvals')

/** lead -> mid -> leaf; the leaf's tools ask for confirmation (delete_file) or run outside (browser). */
const tree = (p: ToolProbe, leafTurns: ScriptedTurn[], { parallel = false, extraTools = [] as Tool[] } = {}) => {
  const leaf = () => agentTool({
    name: 'dig', description: 'Digs', concurrencySafe: true,
    agent: () => ({ name: 'Leaf', clock: counterClock('leaf'), tools: [askingTool(p), externalTool(), ...extraTools], model: scriptedModel(leafTurns) }),
  })
  const midTurns: ScriptedTurn[] = parallel
    ? [[...callTool('m1', 'dig', { task: 'one' }), ...callTool('m2', 'dig', { task: 'two' })], [...say('Dug twice.')]]
    : [[...callTool('m1', 'dig', { task: 'dig' })], [...say('Dug.')]]
  const mid = agentTool({ name: 'research', description: 'R', agent: { name: 'Mid', clock: counterClock('mid'), tools: [leaf()], model: scriptedModel(midTurns) } })
  return createAgent({ name: 'Lead', clock: counterClock('lead'), tools: [mid], model: scriptedModel([[...callTool('c1', 'research', { task: 'go' })], [...say('Done.')]]) })
}

const asking: ScriptedTurn[] = [[...say('Deleting.'), ...callTool('d1', 'delete_file', { path: '/tmp/a' })], [...say('Deleted.')]]
const leafOf = (root: Agent) => root.children()[0].children()[0]

test("a descendant's approval parks every agent up to the root; the root's waiting_for lists it with its session", async () => {
  const p = probe()
  const root = tree(p, asking)
  const reply = await root.reply('go')
  const mid = root.children()[0]
  const leaf = leafOf(root)
  for (const agent of [root, mid, leaf]) assert.is(agent.state.status, 'paused', `${agent.name} is paused`)
  assert.equal(reply.waiting_for.map((c) => [c.id, c.name, c.state, c.session_id]), [['d1', 'delete_file', 'asking', leaf.session_id]])
  // In its own log, each parent's sub-agent call waits as a submitted call.
  assert.equal(root.state.waiting_for.map((c) => [c.id, c.state]), [['c1', 'submitted']])
  assert.equal(mid.state.waiting_for.map((c) => [c.id, c.state]), [['m1', 'submitted']])
  assert.equal(firstOf(root, 'REQUIRE_EXTERNAL_EXECUTION')!.metadata.child_session_id, mid.session_id)
  assert.equal(p.started, [])
  checkTree(root)
})

test('approve on the root answers the call where it is; the child, then each parent resumes, and approve resolves to the root reply', async () => {
  const p = probe()
  const root = tree(p, asking)
  await root.reply('go')
  const reply = await root.approve('d1')
  assert.is(reply.finished_reason, 'completed')
  assert.is(reply.text, 'Done.')
  assert.equal(reply.waiting_for, [])
  assert.equal(p.started.map((s) => s.id), ['d1'])
  for (const agent of treeOf(root)) assert.is(agent.state.status, 'idle', `${agent.name} is idle`)
  const midResult = resultOf(root.children()[0], 'm1')
  assert.match(textOf(midResult.output), /Deleting\.Deleted\./, "the leaf's text, before and after its pause, is the mid's result")
  assert.is(textOf(resultOf(root, 'c1').output), 'Dug.')
  checkTree(root)
})

test("deny on the root denies the descendant's call; its model reads the denial", async () => {
  const p = probe()
  const root = tree(p, [[...callTool('d1', 'delete_file', { path: '/tmp/a' })], [...say('I left it.')]])
  await root.reply('go')
  const reply = await root.deny('d1', 'keep it')
  assert.is(reply.finished_reason, 'completed')
  assert.equal(p.started, [])
  assert.is(resultOf(leafOf(root), 'd1').state, 'denied')
  assert.match(textOf(resultOf(root.children()[0], 'm1').output), /I left it\./)
  checkTree(root)
})

test("submitResult on the root gives a descendant's external call its result", async () => {
  const root = tree(probe(), [[...callTool('b1', 'browser', { url: 'https://example.com' })], [...say('The page says hi.')]])
  const paused = await root.reply('go')
  assert.equal(paused.waiting_for.map((c) => [c.id, c.state]), [['b1', 'submitted']])
  const reply = await root.submitResult('b1', 'hi')
  assert.is(reply.finished_reason, 'completed')
  assert.is(textOf(resultOf(leafOf(root), 'b1').output), 'hi')
  checkTree(root)
})

test("answering on the child's own session resumes the tree too", async () => {
  const p = probe()
  const root = tree(p, asking)
  await root.reply('go')
  const leaf = leafOf(root)
  await leaf.approve('d1')
  await until(() => root.state.status === 'idle')
  assert.is(root.state.context.at(-1)!.finished_reason, 'completed')
  checkTree(root)
})

test("replyStream on the root with a descendant's input event yields the root's resumed events", async () => {
  const root = tree(probe(), asking)
  await root.reply('go')
  const leaf = leafOf(root)
  const events = await collect(root.replyStream(approveEvent(leaf.state, 'd1')))
  assert.ok(events.every((e) => e.reply_id === root.state.reply_id), "only the root's reply")
  assert.equal(events.map((e) => e.type).slice(0, 2), ['TOOL_RESULT_TEXT_DELTA', 'TOOL_RESULT_END'])
  assert.is(events.at(-1)!.type, 'REPLY_END')
  checkTree(root)
})

test("leaving a root stream that follows a descendant's answer stops the whole tree", async () => {
  const leafTool = slowTool(probe(), { name: 'slow', ms: 60_000 })
  const root = tree(probe(), [[...callTool('d1', 'delete_file', { path: '/a' })], [...callTool('s1', 'slow', { x: 'a' })], [...say('never')]], { extraTools: [leafTool] })
  await root.reply('go')
  for await (const event of root.replyStream(approveEvent(leafOf(root).state, 'd1'), { descendants: true })) {
    if (event.type === 'TOOL_RESULT_START' && event.tool_call_id === 's1') break
  }
  for (const agent of treeOf(root)) {
    assert.is(agent.state.status, 'idle', `${agent.name} is idle`)
    assert.is(agent.state.context.at(-1)!.finished_reason, 'interrupted')
  }
  checkTree(root)
})

test('a descendant that parks again leaves the tree parked: approve resolves with the next waiting call', async () => {
  const p = probe()
  const root = tree(p, [[...callTool('d1', 'delete_file', { path: '/a' })], [...callTool('d2', 'delete_file', { path: '/b' })], [...say('Both gone.')]])
  await root.reply('go')
  const again = await root.approve('d1')
  assert.is(root.state.status, 'paused')
  assert.equal(again.waiting_for.map((c) => c.id), ['d2'])
  const done = await root.approve('d2')
  assert.is(done.finished_reason, 'completed')
  assert.equal(p.started.map((s) => s.id), ['d1', 'd2'])
  checkTree(root)
})

test('children parked in parallel: the root waits for the calls of both, each with its session; an id both use must name its session', async () => {
  const p = probe()
  const root = tree(p, [[...callTool('d1', 'delete_file', { path: '/a' })], [...say('Gone.')]], { parallel: true })
  const paused = await root.reply('go')
  const leaves = root.children()[0].children()
  assert.is(leaves.length, 2)
  assert.equal(paused.waiting_for.map((c) => c.session_id), leaves.map((l) => l.session_id))
  await rejectsWithCode(root.approve('d1'), 'INVALID_INPUT')
  const first = await root.approve(paused.waiting_for[0])
  assert.equal(first.waiting_for.map((c) => c.session_id), [leaves[1].session_id], 'the other leaf still waits')
  const done = await root.approve(first.waiting_for[0])
  assert.is(done.finished_reason, 'completed')
  checkTree(root)
})

test('USER_INTERRUPT on the root closes every pending call of the tree, deepest first', async () => {
  const root = tree(probe(), asking)
  await root.reply('go')
  const order: string[] = []
  for (const agent of treeOf(root)) agent.events$.subscribe((e) => e.type === 'REPLY_END' && order.push(`${agent.name} ${e.finished_reason}`))
  await root.interrupt()
  assert.equal(order, ['Leaf interrupted', 'Mid interrupted', 'Lead interrupted'])
  assert.is(resultOf(leafOf(root), 'd1').state, 'interrupted')
  for (const agent of treeOf(root)) assert.is(agent.state.status, 'idle')
  checkTree(root)
})

test("interrupting a parked child alone answers its parent's call, and the tree goes on", async () => {
  const root = tree(probe(), asking)
  await root.reply('go')
  await leafOf(root).interrupt()
  await until(() => root.state.status === 'idle')
  assert.is(root.state.context.at(-1)!.finished_reason, 'completed')
  const midResult = resultOf(root.children()[0], 'm1')
  assert.is(midResult.state, 'interrupted')
  assert.match(textOf(midResult.output), /stopped by the user/)
  checkTree(root)
})

const until = async (condition: () => boolean) => {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 1))
}
const resultOf = (agent: Agent, id: string) =>
  [...agent.state.context, ...(agent.state.reply_msg ? [agent.state.reply_msg] : [])].flatMap((m) => m.content).find((b): b is ToolResultBlock => b.type === 'tool_result' && b.id === id)!
const textOf = (output: ToolResultBlock['output']) => (typeof output === 'string' ? output : output.map((b) => (b.type === 'text' ? b.text : '')).join(''))

test.run()
