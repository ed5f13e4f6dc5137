// The Anthropic Messages adapter: posts a streaming request and decodes its events into chunks:
// message_start / message_delta -> usage (totals so far), text / thinking / signature /
// input_json deltas -> text, thinking, thinking_signature and tool_call chunks (with the tool_use
// block's id and name), `error` events -> ModelError. Unknown events (ping, future ones) are skipped.
import { checkKnownKeys, optionKeys } from '../core/strictOptions.js'
import { AgentError, ModelError } from '../core/errors.js'
import type { ErrorType } from '../core/messages.js'
import type { ChatModel, ModelChunk } from './model.js'
import { anthropicRequestBody, type AnthropicThinking } from './format-anthropic.js'
import { checkBaseURL } from './credentials.js'
import { env, parseEventData, streamChunks, type SSEDecoder } from './http.js'

export interface AnthropicModelOptions {
  model: string
  /** Default: `ANTHROPIC_API_KEY`. */
  apiKey?: string
  /** Default: `ANTHROPIC_BASE_URL`, else `https://api.anthropic.com`. */
  baseURL?: string
  maxTokens: number
  /** Extended thinking, e.g. `{ type: 'enabled', budget_tokens: 2048 }` (budget below maxTokens). */
  thinking?: AnthropicThinking
  headers?: Record<string, string>
  /** Retries after the first attempt, for 429, 408, 5xx / 529 and connection failures (default 2). */
  maxRetries?: number
  /** Per attempt, request and stream (default 10 minutes). */
  timeoutMs?: number
  fetch?: typeof globalThis.fetch
}

const PROVIDER = 'Anthropic'

const ANTHROPIC_OPTION_KEYS = optionKeys<AnthropicModelOptions>({
  model: true, apiKey: true, baseURL: true, maxTokens: true, thinking: true, headers: true, maxRetries: true, timeoutMs: true, fetch: true,
})

export const anthropicModel = (options: AnthropicModelOptions): ChatModel => {
  if (!options || typeof options.model !== 'string' || !options.model) {
    throw new AgentError('INVALID_OPTION', `anthropicModel: \`model\` must be a model name such as "claude-sonnet-4-5"; received ${JSON.stringify(options?.model)}.`)
  }
  checkKnownKeys('anthropicModel', options, ANTHROPIC_OPTION_KEYS)
  if (!Number.isInteger(options.maxTokens) || options.maxTokens < 1) {
    throw new AgentError('INVALID_OPTION', `anthropicModel: \`maxTokens\` must be a positive integer (the API requires max_tokens); received ${JSON.stringify(options.maxTokens)}.`)
  }
  const baseURL = checkBaseURL('anthropicModel', options.baseURL ?? env('ANTHROPIC_BASE_URL') ?? 'https://api.anthropic.com').replace(/\/+$/, '')
  const apiKey = options.apiKey ?? env('ANTHROPIC_API_KEY')
  return {
    name: options.model,
    async *stream(request, { signal }) {
      if (!apiKey) throw new ModelError({ type: 'setup', message: 'Anthropic: no API key: pass `apiKey` to anthropicModel or set ANTHROPIC_API_KEY.' })
      yield* streamChunks({
        provider: PROVIDER,
        url: `${baseURL}/v1/messages`,
        headers: {
          'content-type': 'application/json',
          accept: 'text/event-stream',
          'x-api-key': apiKey,
          'anthropic-version': '2023-06-01',
          ...options.headers,
        },
        body: anthropicRequestBody(request, { model: options.model, maxTokens: options.maxTokens, thinking: options.thinking }),
        maxRetries: options.maxRetries ?? 2,
        timeoutMs: options.timeoutMs ?? 600_000,
        fetch: options.fetch ?? globalThis.fetch,
        secrets: apiKey ? [apiKey] : [],
        decoder: anthropicDecoder,
      }, signal)
    },
  }
}

interface RawUsage { input_tokens?: number | null; output_tokens?: number | null; cache_read_input_tokens?: number | null; cache_creation_input_tokens?: number | null }
interface RawBlock { type?: string; id?: string; name?: string; input?: unknown }
interface RawDelta { type?: string; text?: string; thinking?: string; signature?: string; partial_json?: string }

/** Decodes one response's events. Usage chunks carry the totals so far. */
export const anthropicDecoder = (): SSEDecoder => {
  const tools = new Map<number, { id: string; name: string; sent: boolean }>()
  const usage = { input_tokens: 0, output_tokens: 0, cache_input_tokens: 0, cache_creation_input_tokens: 0 }
  let finished = false
  const takeUsage = (raw: RawUsage | undefined): ModelChunk[] => {
    if (!raw || typeof raw !== 'object') return []
    // message_delta repeats the cumulative counts; a null or missing field keeps the last value.
    if (typeof raw.input_tokens === 'number') usage.input_tokens = raw.input_tokens
    if (typeof raw.output_tokens === 'number') usage.output_tokens = raw.output_tokens
    if (typeof raw.cache_read_input_tokens === 'number') usage.cache_input_tokens = raw.cache_read_input_tokens
    if (typeof raw.cache_creation_input_tokens === 'number') usage.cache_creation_input_tokens = raw.cache_creation_input_tokens
    return [{ type: 'usage', ...usage }]
  }
  return {
    event({ data }) {
      const json = parseEventData(PROVIDER, data)
      const index = typeof json.index === 'number' ? json.index : -1
      switch (json.type) {
        case 'message_start':
          return takeUsage((json.message as { usage?: RawUsage } | undefined)?.usage)
        case 'content_block_start': {
          const block = (json.content_block ?? {}) as RawBlock
          if (block.type !== 'tool_use') return []
          const id = typeof block.id === 'string' && block.id !== '' ? block.id : `toolu_${index}_${crypto.randomUUID()}`
          const tool = { id, name: typeof block.name === 'string' ? block.name : '', sent: false }
          tools.set(index, tool)
          // The streamed API starts with `input: {}`; a server that sends the whole input here is honoured.
          const input = block.input && typeof block.input === 'object' && Object.keys(block.input).length ? JSON.stringify(block.input) : ''
          tool.sent = input !== ''
          return [{ type: 'tool_call', id: tool.id, name: tool.name, delta: input }]
        }
        case 'content_block_delta': {
          const delta = (json.delta ?? {}) as RawDelta
          if (delta.type === 'text_delta' && delta.text) return [{ type: 'text', delta: delta.text }]
          if (delta.type === 'thinking_delta' && delta.thinking) return [{ type: 'thinking', delta: delta.thinking }]
          if (delta.type === 'signature_delta' && delta.signature) return [{ type: 'thinking_signature', signature: delta.signature }]
          const tool = tools.get(index)
          if (delta.type === 'input_json_delta' && tool && delta.partial_json) {
            tool.sent = true
            return [{ type: 'tool_call', id: tool.id, name: tool.name, delta: delta.partial_json }]
          }
          return []
        }
        case 'content_block_stop': {
          const tool = tools.get(index)
          if (!tool || tool.sent) return []
          // A tool without arguments streams no JSON at all; '' would not parse.
          tool.sent = true
          return [{ type: 'tool_call', id: tool.id, name: tool.name, delta: '{}' }]
        }
        case 'message_delta':
          if ((json.delta as { stop_reason?: unknown } | undefined)?.stop_reason) finished = true
          return takeUsage(json.usage as RawUsage | undefined)
        case 'message_stop':
          finished = true
          return []
        case 'error':
          throw streamError(json.error)
        default:
          return []
      }
    },
    end() {
      if (!finished) throw new ModelError({ type: 'upstream', message: 'Anthropic: malformed stream: it ended before message_stop.' })
      return []
    },
  }
}

const STREAM_ERROR_TYPES: Record<string, ErrorType> = {
  invalid_request_error: 'invalid_request',
  not_found_error: 'invalid_request',
  request_too_large: 'invalid_request',
  authentication_error: 'authentication',
  permission_error: 'permission',
  rate_limit_error: 'rate_limit',
  api_error: 'upstream',
  overloaded_error: 'upstream',
  timeout_error: 'connection',
}

/** An `error` event: `{type: 'error', error: {type: 'overloaded_error', message}}`. */
const streamError = (raw: unknown): ModelError => {
  const error = (raw && typeof raw === 'object' ? raw : {}) as { type?: unknown; message?: unknown }
  const type = STREAM_ERROR_TYPES[String(error.type)] ?? 'upstream'
  const message = typeof error.message === 'string' && error.message ? error.message : String(error.type ?? 'unknown error')
  return new ModelError({ type, message: `Anthropic stream error (${String(error.type ?? 'unknown')}): ${message}` })
}
