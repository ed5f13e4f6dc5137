// What a caller sees when parts misbehave (`npx tsx examples/failures.ts`): a permission check that
// throws becomes the call's error result (the tool never runs, the reply goes on), and a log whose
// append fails stops the agent with a coded error instead of crashing the process.
import { z } from 'zod'
import { AgentError, callTool, createAgent, defineTool, memoryLog, say, scriptedModel, UserMsg, type LogStore } from 'agentlog'

const deleteFile = defineTool({
  name: 'delete_file', description: 'Deletes a file', input: z.object({ path: z.string() }),
  permission: () => { throw new Error('the policy service is down') },
  execute: () => 'deleted',
})
const model = scriptedModel([[...callTool('c1', 'delete_file', { path: 'notes.txt' })], say('I could not delete it.')])
const agent = createAgent({ name: 'Friday', model, tools: [deleteFile] })
await agent.reply(UserMsg({ content: 'delete notes.txt' }))
const result = agent.state.context[1].content.find((block) => block.type === 'tool_result')
console.log(result?.type === 'tool_result' ? `${result.state}: ${result.output as string}` : 'no result')

// A log whose disk is full after ten events.
const inner = memoryLog()
const fullDisk: LogStore = {
  ...inner,
  get events() { return inner.events },
  append(events, options) {
    if (inner.events.length >= 10) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' })
    inner.append(events, options)
  },
}
const broken = createAgent({ name: 'Friday', model: scriptedModel([say('a long answer in many pieces', 20)]), log: fullDisk })
try {
  await broken.reply(UserMsg({ content: 'hello' }))
} catch (error) {
  console.log((error as AgentError).code, '-', (error as AgentError).message)
}
