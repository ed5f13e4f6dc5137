// The scripted agent the example server runs (no API key): it echoes a message word by word, asks
// for approval to run `risky` when the message contains "ask", and streams slowly (one word every
// 40 ms) when it contains "slow", so Stop can cut it mid-stream.
import { defineTool, scriptedModel, textOf, type AgentOptions, type ModelRequest, type ScriptStep } from 'agentlog'
import { z } from 'zod'

const risky = defineTool({
  name: 'risky', description: 'Does something the user must allow', input: z.object({ n: z.number() }), permission: 'ask',
  execute: async ({ n }) => `did ${n}`,
})

let calls = 0

const turn = (request: ModelRequest): ScriptStep[] => {
  const last = request.messages[request.messages.length - 1]
  if (last.role !== 'user') return [{ type: 'text', delta: 'Done.' }]
  const text = textOf(last)
  if (text.includes('ask')) return [{ type: 'text', delta: 'I need your approval. ' }, { type: 'tool_call', id: `call-${++calls}`, name: 'risky', delta: JSON.stringify({ n: calls }) }]
  const slow = text.includes('slow')
  return text.split(' ').flatMap((word): ScriptStep[] => [...(slow ? [{ type: 'delay' as const, ms: 40 }] : []), { type: 'text', delta: `${word} ` }])
}

export const exampleAgent = (): Omit<AgentOptions, 'log' | 'session_id'> => ({ name: 'Friday', model: scriptedModel([turn], { onExhausted: 'repeat-last' }), tools: [risky] })
