// The model interface: anything that streams chunks for a request. Adapters (OpenAI-compatible,
// Anthropic) and the scripted model implement it; the callModel effect turns chunks into events.
import type { Msg } from '../core/messages.js'

export interface ToolSpec {
  name: string
  description: string
  input_schema: object
}

/** 'auto': the model may call tools; 'none': it may not; `{ name }`: it must call that tool. */
export type ToolChoice = 'auto' | 'none' | { name: string }

export interface ModelRequest {
  /** The system prompt as a `system` message, then the context, then the reply so far. */
  messages: Msg[]
  tools: ToolSpec[]
  tool_choice: ToolChoice
}

export type ModelChunk =
  | { type: 'text'; delta: string }
  | { type: 'thinking'; delta: string }
  /** A provider's signature of the thinking block being streamed (Anthropic), kept so it can be sent back. */
  | { type: 'thinking_signature'; signature: string }
  | { type: 'tool_call'; id: string; name: string; delta: string }
  /** Part of a data block the model returns (an image), base64; chunks with the same `id` continue one block. */
  | { type: 'data'; id?: string; media_type: string; data: string }
  | {
      type: 'usage'; input_tokens: number; output_tokens: number
      cache_input_tokens?: number; cache_creation_input_tokens?: number
    }

export interface ChatModel {
  name: string
  stream(request: ModelRequest, options: { signal: AbortSignal }): AsyncIterable<ModelChunk>
}
