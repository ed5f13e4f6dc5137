// Message and block builders for the formatting specs; every message is checked against MsgSchema.
import {
  MsgSchema, type Block, type DataBlock, type HintBlock, type Msg, type TextBlock, type ThinkingBlock,
  type ToolCallBlock, type ToolResultBlock,
} from '../../../lib/core/messages.js'
import type { ModelRequest } from '../../../lib/models/model.js'

let n = 0
const stamps = { created_at: '2025-06-01T10:00:00.000Z', finished_at: '2025-06-01T10:00:01.000Z' }
const nextId = () => `blk_${++n}`

export const text = (value: string): TextBlock => ({ type: 'text', text: value, id: nextId(), ...stamps })
export const thinking = (value: string, signature?: string): ThinkingBlock =>
  ({ type: 'thinking', thinking: value, ...(signature ? { signature } : {}), id: nextId(), ...stamps })
export const image = (data: string, media_type = 'image/png'): DataBlock =>
  ({ type: 'data', source: { type: 'base64', data, media_type }, id: nextId(), ...stamps })
export const hint = (value: string): HintBlock => ({ type: 'hint', hint: value, id: nextId(), ...stamps })
export const call = (id: string, name: string, input: string, state: ToolCallBlock['state'] = 'finished'): ToolCallBlock =>
  ({ type: 'tool_call', id, name, input, state, ...stamps })
export const result = (id: string, name: string, output: ToolResultBlock['output'], state: ToolResultBlock['state'] = 'success'): ToolResultBlock =>
  ({ type: 'tool_result', id, name, output, state, metadata: {}, ...stamps })

export const msg = (role: Msg['role'], content: Block[]): Msg => MsgSchema.parse({
  id: `msg_${++n}`, name: role === 'assistant' ? 'Friday' : role, role, content, metadata: {},
  created_at: stamps.created_at, usage: null, finished_at: null, finished_reason: null, structured_output: null, error: null,
})

export const INTERRUPTED = '<system-reminder>The tool call has been interrupted by the user.</system-reminder>'
export const DENIED = '<system-reminder>The execution of tool "delete_files" is denied by user!</system-reminder>'

export const weatherTool = {
  name: 'get_weather',
  description: 'The current weather in a city.',
  input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
}

export const simpleRequest = (overrides: Partial<ModelRequest> = {}): ModelRequest => ({
  messages: [msg('system', [text('You are a travel assistant.')]), msg('user', [text('Weather in Paris?')])],
  tools: [weatherTool],
  tool_choice: 'auto',
  ...overrides,
})
