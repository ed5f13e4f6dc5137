import { merge } from 'rxjs'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { agentTool, callTool, counterClock, createAgent, descendantEvents$, say, scriptedModel, type Agent, type AgentEvent, type ToolResultBlock } from '../../lib/index.js'
import { probe, slowTool, type ToolProbe } from '../helpers/fixtures.js'
import { checkTree, treeOf } from '../helpers/tree.js'

const test = suite('subagents/stop')

/** lead -> mid -> leaf; the leaf runs a stubborn tool that ignores its signal. */
const tree = (p: ToolProbe) => {
  const leaf = agentTool({
    name: 'dig', description: 'Digs',
    agent: {
      name: 'Leaf', clock: counterClock('leaf'), tools: [slowTool(p, { name: 'stubborn', ms: 10_000, ignoreSignal: true, safe: true })],
      model: scriptedModel([[...say('Looking.'), ...callTool('s1', 'stubborn', { x: 'a' })], [...say('Found.')]]),
    },
  })
  const mid = agentTool({
    name: 'research', description: 'Researches',
    agent: { name: 'Mid', clock: counterClock('mid'), tools: [leaf], model: scriptedModel([[...say('Digging.'), ...callTool('m1', 'dig', { task: 'dig' })], [...say('Dug.')]]) },
  })
  return createAgent({ name: 'Lead', clock: counterClock('lead'), tools: [mid], model: scriptedModel([[...callTool('c1', 'research', { task: 'go' })], [...say('Done.')]]) })
}

/** Every event of the tree, in the order the logs took them, as 'Name TYPE'. */
const record = (root: Agent) => {
  const order: string[] = []
  const names = new Map<string, string>()
  merge(root.events$, descendantEvents$(root)).subscribe((event: AgentEvent) => {
    const session = (event.metadata.session_id as string | undefined) ?? root.session_id
    if (!names.has(session)) names.set(session, treeOf(root).find((a) => a.session_id === session)?.name ?? '?')
    if (event.type.endsWith('_DELTA')) return
    order.push(`${names.get(session)} ${event.type}${event.type === 'REPLY_END' || event.type === 'TOOL_RESULT_END' ? `(${'finished_reason' in event ? event.finished_reason : event.state})` : ''}`)
  })
  return order
}

const until = async (condition: () => boolean) => {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 1))
}

const leafWorking = (p: ToolProbe) => () => p.started.length > 0

const ways: [string, (root: Agent, p: ToolProbe) => Promise<void>][] = [
  ['interrupt()', async (root, p) => {
    void drain(root.replyStream('go'))
    await until(leafWorking(p))
    await root.interrupt()
  }],
  ['leaving the loop (break)', async (root, p) => {
    for await (const _ of root.replyStream('go', { descendants: true })) if (leafWorking(p)()) break
  }],
  ['an AbortSignal', async (root, p) => {
    const controller = new AbortController()
    const done = drain(root.replyStream('go', { signal: controller.signal }))
    await until(leafWorking(p))
    controller.abort()
    await done
  }],
  ['unsubscribing from reply$', async (root, p) => {
    const subscription = root.reply$('go').subscribe()
    await until(leafWorking(p))
    subscription.unsubscribe()
  }],
]

for (const [way, stop] of ways) {
  test(`stopping the root by ${way} interrupts the whole tree, deepest first, without waiting for a stubborn tool`, async () => {
    const p = probe()
    const root = tree(p)
    const order = record(root)
    await stop(root, p)
    const [mid] = root.children()
    const [leaf] = mid.children()
    for (const agent of [root, mid, leaf]) assert.is(agent.state.status, 'idle', `${agent.name} is idle`)
    const ends = order.filter((e) => /REPLY_END|TOOL_RESULT_END\(interrupted\)/.test(e))
    assert.equal(ends, [
      'Leaf TOOL_RESULT_END(interrupted)', 'Leaf REPLY_END(interrupted)',
      'Mid TOOL_RESULT_END(interrupted)', 'Mid REPLY_END(interrupted)',
      'Lead TOOL_RESULT_END(interrupted)', 'Lead REPLY_END(interrupted)',
    ])
    assert.equal(p.finished, [], 'the stubborn tool was not waited for')
    assert.equal(p.aborted, ['s1'], "the stubborn tool's signal fired")
    // Nothing of the tree runs after the Stop: no model call starts, no event is added.
    const sizes = treeOf(root).map((a) => a.log.length)
    await new Promise((resolve) => setTimeout(resolve, 20))
    assert.equal(treeOf(root).map((a) => a.log.length), sizes)
    const result = resultOf(root, 'c1')
    assert.is(result.state, 'interrupted')
    assert.match(textOf(result.output), /Digging\./, "the call's result keeps the child's partial output")
    checkTree(root)
  })
}

test("stopping one child ends only its reply; the parent's call gets its partial output and a reminder, and the parent goes on", async () => {
  const child = agentTool({
    name: 'research', description: 'R',
    agent: { name: 'Researcher', clock: counterClock('r'), model: scriptedModel([[...say('part '.repeat(300), 300)]], { chunkDelayMs: 2 }) },
  })
  const model = scriptedModel([[...callTool('c1', 'research', { task: 'go' })], [...say('The research was stopped; what next?')]])
  const root = createAgent({ name: 'Lead', clock: counterClock('l'), tools: [child], model })
  const replied = root.reply('go')
  await until(() => root.children()[0]?.log.some((e) => e.type === 'TEXT_BLOCK_DELTA') ?? false)
  await root.children()[0].interrupt()
  const reply = await replied
  assert.is(reply.finished_reason, 'completed')
  assert.match(reply.text, /what next\?$/)
  const result = resultOf(root, 'c1')
  assert.is(result.state, 'interrupted')
  assert.match(textOf(result.output), /^part /)
  assert.match(textOf(result.output), /sub-agent "Researcher" was stopped by the user/)
  // The parent's model read the reminder.
  assert.match(JSON.stringify(model.requests[1].messages), /was stopped by the user/)
  assert.is(root.children()[0].log.at(-1)!.type, 'REPLY_END')
  checkTree(root)
})

const drain = async (stream: AsyncIterable<unknown>) => {
  for await (const _ of stream) void _
}
const resultOf = (agent: Agent, id: string) =>
  [...agent.state.context, ...(agent.state.reply_msg ? [agent.state.reply_msg] : [])].flatMap((m) => m.content).find((b): b is ToolResultBlock => b.type === 'tool_result' && b.id === id)!
const textOf = (output: ToolResultBlock['output']) => (typeof output === 'string' ? output : output.map((b) => (b.type === 'text' ? b.text : '')).join(''))

test.run()
