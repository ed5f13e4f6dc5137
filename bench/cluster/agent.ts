// The agent every `agentlog serve` process of the cluster benchmark serves (`--agent`): a scripted
// model with realistic pacing. "work" streams 24 deltas 4 ms apart, calls a tool that takes 20 ms,
// then streams 8 more; "ask" asks permission to remove a file (the reply pauses until approved or
// denied) and then says it is done.
import { z } from 'zod'
import { sleep } from '../../lib/core/abort.js'
import { callTool, defineTool, scriptedModel, type ModelRequest, type ScriptStep } from '../../lib/index.js'

const lookup = defineTool({ name: 'lookup', description: 'Looks a word up', input: z.object({ word: z.string() }), execute: async ({ word }) => {
  await sleep(20)
  return `${word}: found`
} })
const remove = defineTool({ name: 'remove', description: 'Removes a file', input: z.object({ path: z.string() }), permission: 'ask', execute: ({ path }) => `removed ${path}` })

const words = (count: number, ms: number): ScriptStep[] => Array.from({ length: count }, (_, i): ScriptStep[] => [{ type: 'delay', ms }, { type: 'text', delta: `w${i} ` }]).flat()

const answer = (request: ModelRequest): ScriptStep[] => {
  const last = request.messages.at(-1)!
  if (last.role === 'assistant' && last.content.some((b) => b.type === 'tool_result')) return words(8, 4)
  const text = last.content.map((b) => (b.type === 'text' ? b.text : '')).join('')
  if (text.includes('ask')) return [...words(4, 4), ...callTool(`c-${Date.now()}`, 'remove', { path: '/tmp/a' })]
  return [...words(24, 4), ...callTool(`l-${Date.now()}`, 'lookup', { word: 'agent' })]
}

export default () => ({ name: 'Bench', tools: [lookup, remove], model: scriptedModel([answer], { onExhausted: 'repeat-last' }) })
