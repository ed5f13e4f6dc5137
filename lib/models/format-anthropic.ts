// Request formatting for the Anthropic Messages API: system messages joined into `system`, tool
// calls as `tool_use` blocks answered by `tool_result` blocks at the head of the next user message,
// consecutive same-role messages merged, signed thinking sent back, hints as user text, tool inputs
// repaired to objects, images in user content and tool results. Pure functions.
import type { Msg } from '../core/messages.js'
import type { ModelRequest, ToolSpec } from './model.js'
import { dataPlaceholder, resultParts, toTurns, type Part } from './format-shared.js'
import { repairToolInput } from './repair-json.js'

type Source = { type: 'base64'; media_type: string; data: string } | { type: 'url'; url: string }
export type AnthropicTextBlock = { type: 'text'; text: string }
export type AnthropicImageBlock = { type: 'image'; source: Source }
export type AnthropicBlock =
  | AnthropicTextBlock
  | AnthropicImageBlock
  | { type: 'document'; source: Source }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'tool_result'; tool_use_id: string; content?: Array<AnthropicTextBlock | AnthropicImageBlock>; is_error?: true }

export interface AnthropicMessage { role: 'user' | 'assistant'; content: AnthropicBlock[] }
export interface AnthropicTool { name: string; description: string; input_schema: object }

export type AnthropicThinking = { type: 'enabled'; budget_tokens: number } | { type: 'disabled' }

export interface AnthropicBodyOptions {
  model: string
  maxTokens: number
  thinking?: AnthropicThinking
}

const EMPTY_USER_TEXT = '(empty message)'

export const formatAnthropicMessages = (messages: Msg[]): { system?: string; messages: AnthropicMessage[] } => {
  const system: string[] = []
  const out: AnthropicMessage[] = []
  const add = (role: AnthropicMessage['role'], content: AnthropicBlock[]) => {
    // A user turn with nothing the API accepts (blank text) still counts: roles must alternate.
    if (!content.length && role === 'user') content = [{ type: 'text', text: EMPTY_USER_TEXT }]
    if (!content.length) return
    const last = out[out.length - 1]
    if (last?.role === role) last.content.push(...content)
    else out.push({ role, content })
  }
  for (const turn of toTurns(messages)) {
    if (turn.role === 'system') {
      if (turn.text.trim()) system.push(turn.text)
    } else if (turn.role === 'tool') {
      const content = resultParts(turn.result).flatMap((part) => toBlocks(part, false)) as Array<AnthropicTextBlock | AnthropicImageBlock>
      add('user', [{
        type: 'tool_result',
        tool_use_id: turn.result.id,
        ...(content.length ? { content } : {}),
        ...(turn.result.state === 'error' ? { is_error: true as const } : {}),
      }])
    } else {
      add(turn.role, turn.parts.flatMap((part): AnthropicBlock[] => {
        if (part.type === 'tool_call') return [{ type: 'tool_use', id: part.id, name: part.name, input: repairToolInput(part.input).value }]
        if (part.type === 'thinking') {
          // Only a signed thinking block can be sent back; the others are dropped.
          const { signature } = part as { signature?: unknown }
          return typeof signature === 'string' && signature ? [{ type: 'thinking', thinking: part.thinking, signature }] : []
        }
        return toBlocks(part, turn.role === 'user')
      }))
    }
  }
  // The API wants the conversation to start with a user message.
  if (out[0]?.role !== 'user') out.unshift({ role: 'user', content: [{ type: 'text', text: EMPTY_USER_TEXT }] })
  // The API wants tool results first in a user message.
  for (const message of out) {
    if (message.role === 'user') {
      message.content = [...message.content.filter(isResult), ...message.content.filter((block) => !isResult(block))]
    }
  }
  return { ...(system.length ? { system: system.join('\n\n') } : {}), messages: out }
}

export const formatAnthropicTools = (tools: ToolSpec[]): AnthropicTool[] =>
  tools.map((tool) => ({ name: tool.name, description: tool.description, input_schema: tool.input_schema }))

export const anthropicRequestBody = (request: ModelRequest, options: AnthropicBodyOptions): Record<string, unknown> => {
  const { system, messages } = formatAnthropicMessages(request.messages)
  const body: Record<string, unknown> = { model: options.model, max_tokens: options.maxTokens, messages, stream: true }
  if (system !== undefined) body.system = system
  if (request.tools.length) {
    body.tools = formatAnthropicTools(request.tools)
    const choice = request.tool_choice
    // The API refuses a forced tool with extended thinking on: the model is then only offered it.
    const forcible = options.thinking?.type !== 'enabled'
    body.tool_choice = typeof choice === 'string' ? { type: choice } : forcible ? { type: 'tool', name: choice.name } : { type: 'auto' }
  }
  if (options.thinking) body.thinking = options.thinking
  return body
}

const isResult = (block: AnthropicBlock): boolean => block.type === 'tool_result'

const IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp'])

/** A part as blocks: empty text is dropped (the API refuses it), unsupported data becomes a placeholder. */
const toBlocks = (part: Part, documents: boolean): AnthropicBlock[] => {
  if (part.type === 'text') return part.text.trim() ? [{ type: 'text', text: part.text }] : []
  const { source } = part
  const image = IMAGE_TYPES.has(source.media_type)
  const pdf = documents && source.media_type === 'application/pdf'
  if (!image && !pdf) return [{ type: 'text', text: dataPlaceholder(part) }]
  const from: Source = source.type === 'url' ? { type: 'url', url: source.url } : { type: 'base64', media_type: source.media_type, data: source.data }
  return [image ? { type: 'image', source: from } : { type: 'document', source: from }]
}
