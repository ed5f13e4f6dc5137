// The agent the two-process server specs serve (`agentlog serve --agent` loads this file): a
// scripted model whose answer depends on the user's words: "slow" streams 200 words 20 ms apart,
// "remove" calls a tool that asks for permission, anything else says hello; after a tool result it
// says "Done.".
import { z } from 'zod'
import { callTool, defineTool, say, scriptedModel, type ModelRequest, type ScriptStep } from '../../../lib/index.js'

const remove = defineTool({ name: 'remove', description: 'Removes a file', input: z.object({ path: z.string() }), permission: 'ask', execute: ({ path }) => `removed ${path}` })

const answer = (request: ModelRequest): ScriptStep[] => {
  const last = request.messages.at(-1)!
  if (last.role === 'assistant' && last.content.some((b) => b.type === 'tool_result')) return say('Done.')
  const text = last.content.map((b) => (b.type === 'text' ? b.text : '')).join('')
  if (text.includes('remove')) return callTool('c-1', 'remove', { path: '/a' })
  if (text.includes('slow')) return Array.from({ length: 200 }, (_, i): ScriptStep[] => [{ type: 'delay', ms: 20 }, { type: 'text', delta: `w${i} ` }]).flat()
  return say('Hello.')
}

export default () => ({ name: 'Friday', tools: [remove], model: scriptedModel([answer], { onExhausted: 'repeat-last' }) })
