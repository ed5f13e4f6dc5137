// Request formatting for the OpenAI Chat Completions API (and compatible servers): messages split
// into assistant messages with `tool_calls`, one `tool` message per result and user messages for
// hints; thinking is not sent back; tool inputs repaired to valid JSON; images only in user content.
// Pure functions: the adapter posts what `openAIRequestBody` returns.
import type { Msg } from '../core/messages.js'
import type { ModelRequest, ToolSpec } from './model.js'
import { dataPlaceholder, partsText, resultParts, toTurns, type Part } from './format-shared.js'
import { repairToolInput } from './repair-json.js'

export type OpenAIContentPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } }
export interface OpenAIToolCall { id: string; type: 'function'; function: { name: string; arguments: string } }

export type OpenAIMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string | OpenAIContentPart[] }
  | { role: 'assistant'; content: string | null; tool_calls?: OpenAIToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string }

export interface OpenAITool { type: 'function'; function: { name: string; description: string; parameters: object } }

export interface OpenAIBodyOptions {
  model: string
  temperature?: number
  maxTokens?: number
  /** OpenAI itself wants `max_completion_tokens`; most compatible servers read `max_tokens`. */
  maxTokensField?: 'max_tokens' | 'max_completion_tokens'
}

export const formatOpenAIMessages = (messages: Msg[]): OpenAIMessage[] => {
  const out: OpenAIMessage[] = []
  for (const turn of toTurns(messages)) {
    if (turn.role === 'system') {
      out.push({ role: 'system', content: turn.text })
    } else if (turn.role === 'tool') {
      out.push({ role: 'tool', tool_call_id: turn.result.id, content: partsText(resultParts(turn.result)) })
    } else if (turn.role === 'user') {
      out.push({ role: 'user', content: userContent(turn.parts.filter(isPart)) })
    } else {
      const text = partsText(turn.parts.filter(isPart))
      const tool_calls = turn.parts.flatMap((part): OpenAIToolCall[] => part.type === 'tool_call'
        ? [{ id: part.id, type: 'function', function: { name: part.name, arguments: repairToolInput(part.input).text } }]
        : [])
      // Thinking alone is not sent back, and an assistant message needs content or tool calls.
      if (!text && !tool_calls.length) continue
      out.push(tool_calls.length ? { role: 'assistant', content: text || null, tool_calls } : { role: 'assistant', content: text })
    }
  }
  return out
}

export const formatOpenAITools = (tools: ToolSpec[]): OpenAITool[] =>
  tools.map((tool) => ({ type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.input_schema } }))

export const openAIRequestBody = (request: ModelRequest, options: OpenAIBodyOptions): Record<string, unknown> => {
  const body: Record<string, unknown> = {
    model: options.model,
    messages: formatOpenAIMessages(request.messages),
    stream: true,
    stream_options: { include_usage: true },
  }
  if (request.tools.length) {
    body.tools = formatOpenAITools(request.tools)
    const choice = request.tool_choice
    body.tool_choice = typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } }
  }
  if (options.temperature !== undefined) body.temperature = options.temperature
  if (options.maxTokens !== undefined) body[options.maxTokensField ?? 'max_tokens'] = options.maxTokens
  return body
}

const isPart = (part: { type: string }): part is Part => part.type === 'text' || part.type === 'data'

/** Plain text as a string (what every compatible server reads); with images, an array of parts. */
const userContent = (parts: Part[]): string | OpenAIContentPart[] => {
  if (parts.every((part) => part.type === 'text' || !part.source.media_type.startsWith('image/'))) return partsText(parts)
  return parts.map((part): OpenAIContentPart => {
    if (part.type === 'text') return { type: 'text', text: part.text }
    if (!part.source.media_type.startsWith('image/')) return { type: 'text', text: dataPlaceholder(part) }
    const url = part.source.type === 'url' ? part.source.url : `data:${part.source.media_type};base64,${part.source.data}`
    return { type: 'image_url', image_url: { url } }
  })
}
