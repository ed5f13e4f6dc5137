// A sub-agent's texts reach its call as a reply's text reads (issue 33 item 12): the texts of its
// model calls, with a tool call between them, are separated by a blank line, and the call's result
// is the sub-agent's reply text exactly.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { z } from 'zod'
import { agentTool, callTool, createAgent, defineTool, outputText, say, scriptedModel, textOf, type Agent } from '../../lib/index.js'

const test = suite('subagents/childTexts')

const lookUp = defineTool({ name: 'look_up', description: 'Looks up', input: z.object({}), execute: () => 'found' })

const lead = (): Agent => createAgent({
  name: 'Lead',
  tools: [agentTool({
    name: 'research', description: 'Researches',
    agent: { name: 'Researcher', tools: [lookUp], model: scriptedModel([[...say('First I look.', 3), ...callTool('l1', 'look_up', {})], [...say('Then I report.', 3)]]) },
  })],
  model: scriptedModel([[...callTool('c1', 'research', { task: 'go' })], [...say('Noted.')]]),
})

test('the texts of a sub-agent\'s model calls are separated by a blank line in its call\'s result', async () => {
  const agent = lead()
  const reply = await agent.reply('research it')
  const result = reply.content.find((b) => b.type === 'tool_result')
  assert.ok(result && result.type === 'tool_result')
  const streamed = agent.log.flatMap((e) => (e.type === 'TOOL_RESULT_TEXT_DELTA' && e.tool_call_id === 'c1' ? [e.delta] : [])).join('')
  assert.is(streamed, 'First I look.\n\nThen I report.')
  const child = agent.children()[0]
  assert.is(outputText(result.output), textOf(child.state.context.at(-1)!))
})

test.run()
