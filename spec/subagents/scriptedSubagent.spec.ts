import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { callResearch, scriptedResearcher } from '../../lib/cli/scriptedSubagent.js'
import { createAgent, say, scriptedModel } from '../../lib/index.js'
import { checkTree } from '../helpers/tree.js'

const test = suite('subagents/scripted demo tool')

test("the demo's research tool runs a scripted Researcher whose report is the call's result", async () => {
  const lead = createAgent({ name: 'assistant', tools: [scriptedResearcher()], model: scriptedModel([[...callResearch('r1', 'sub-agents')], [...say('Done.')]]) })
  const reply = await lead.reply('research sub-agents')
  assert.is(reply.text, 'Done.')
  const [child] = lead.children()
  assert.is(child.name, 'Researcher')
  const result = lead.state.context.at(-1)!.content.find((b) => b.type === 'tool_result')!
  assert.match(JSON.stringify(result), /Findings: the log of every agent/)
  checkTree(lead)
})

test.run()
