import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { agentTool, callTool, counterClock, createAgent, isOutputEvent, say, scriptedModel } from '../../lib/index.js'
import { collect } from '../helpers/fixtures.js'
import { checkTree } from '../helpers/tree.js'

const test = suite('subagents/descendants')

const worker = agentTool({
  name: 'work', description: 'Works', concurrencySafe: true,
  agent: ({ task }) => ({ name: `Worker-${task}`, clock: counterClock(`w${task}`), model: scriptedModel([[{ type: 'delay', ms: 1 }, ...say(`result ${task} `.repeat(3), 3)]]) }),
})
const lead = () => createAgent({
  name: 'Lead', clock: counterClock('l'), tools: [worker],
  model: scriptedModel([[...callTool('c1', 'work', { task: 'a' }), ...callTool('c2', 'work', { task: 'b' })], [...say('Both done.')]]),
})

test("descendants: true interleaves the children's output events, each a copy tagged with its session_id", async () => {
  const agent = lead()
  const events = await collect(agent.replyStream('go', { descendants: true }))
  const children = agent.children()
  assert.is(children.length, 2)
  for (const child of children) {
    const tagged = events.filter((e) => e.metadata.session_id === child.session_id)
    const own = child.log.filter(isOutputEvent)
    assert.equal(tagged.map((e) => e.id), own.map((e) => e.id), `every output event of ${child.name}, in its log's order`)
    assert.equal(tagged.map(({ metadata: { session_id: _, ...rest }, ...e }) => ({ ...e, metadata: rest })), own, 'the same events, tagged')
    assert.not.ok('session_id' in own[0].metadata, "the log's events are not tagged")
    // The child's reply lies inside the parent's call.
    const call = events.find((e) => e.type === 'TOOL_RESULT_START' && e.metadata.child_session_id === child.session_id)!
    const callEnd = events.find((e) => e.type === 'TOOL_RESULT_END' && e.tool_call_id === (call as { tool_call_id: string }).tool_call_id)!
    assert.ok(events.indexOf(call) < events.indexOf(tagged[0]) && events.indexOf(tagged.at(-1)!) < events.indexOf(callEnd))
  }
  const rootEvents = events.filter((e) => e.metadata.session_id === undefined)
  assert.equal(rootEvents.map((e) => e.id), agent.log.filter(isOutputEvent).map((e) => e.id), "the root's own events, untagged")
  checkTree(agent)
})

test('without descendants the stream holds the root reply only', async () => {
  const agent = lead()
  const events = await collect(agent.replyStream('go'))
  assert.ok(events.every((e) => e.metadata.session_id === undefined))
  assert.is(events.length, agent.log.filter(isOutputEvent).length)
})

test.run()
