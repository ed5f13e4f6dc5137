// The agent the two-process server specs serve (`agentlog serve --agent` loads this file): a
// scripted model whose answer depends on the user's words: "slow" streams 200 words 20 ms apart,
// "remove" calls a tool that asks for permission, "delegate" a `research` sub-agent that calls
// `remove` (r-1: the tree waits on the sub-agent's confirmation), anything else says hello; after a
// tool result it says "Done.".
import { z } from 'zod'
import { agentTool, callTool, defineTool, say, scriptedModel, type ModelRequest, type ScriptStep } from '../../../lib/index.js'

const remove = defineTool({ name: 'remove', description: 'Removes a file', input: z.object({ path: z.string() }), permission: 'ask', execute: ({ path }) => `removed ${path}` })

const answer = (request: ModelRequest): ScriptStep[] => {
  const last = request.messages.at(-1)!
  if (last.role === 'assistant' && last.content.some((b) => b.type === 'tool_result')) return say('Done.')
  const text = last.content.map((b) => (b.type === 'text' ? b.text : '')).join('')
  if (text.includes('delegate')) return callTool('c-1', 'research', { task: 'clean up' })
  if (text.includes('remove')) return callTool('c-1', 'remove', { path: '/a' })
  if (text.includes('slow')) return Array.from({ length: 200 }, (_, i): ScriptStep[] => [{ type: 'delay', ms: 20 }, { type: 'text', delta: `w${i} ` }]).flat()
  return say('Hello.')
}

/** The sub-agent removes /a (its call r-1 asks), then says "Removed.". */
const researcher = (request: ModelRequest): ScriptStep[] =>
  request.messages.at(-1)!.content.some((b) => b.type === 'tool_result') ? say('Removed.') : callTool('r-1', 'remove', { path: '/a' })
const research = agentTool({ name: 'research', description: 'Researches', agent: () => ({ name: 'Researcher', tools: [remove], model: scriptedModel([researcher], { onExhausted: 'repeat-last' }) }) })

export default () => ({ name: 'Friday', tools: [remove, research], model: scriptedModel([answer], { onExhausted: 'repeat-last' }) })
