// The OpenAI Chat Completions adapter (also Ollama, vLLM, llama.cpp, DeepSeek, Qwen and other
// compatible servers): posts a streaming request and decodes `chat.completion.chunk` events into
// chunks: content -> text, reasoning_content -> thinking, tool-call fragments keyed by index ->
// tool_call (id and name kept per index), images a model returns as `data:` URLs in `delta.images`
// (OpenRouter and compatible servers) -> data, the usage chunk -> usage, `{error}` in the stream -> ModelError.
import { checkKnownKeys, optionKeys } from '../core/strictOptions.js'
import { AgentError, ModelError } from '../core/errors.js'
import type { ErrorType } from '../core/messages.js'
import type { ChatModel, ModelChunk } from './model.js'
import { openAIRequestBody } from './format-openai.js'
import { checkBaseURL } from './credentials.js'
import { env, parseEventData, statusType, streamChunks, type SSEDecoder } from './http.js'

export interface OpenAIChatModelOptions {
  model: string
  /** Default: `OPENAI_API_KEY`. Without a key no Authorization header is sent (fine for local servers). */
  apiKey?: string
  /** Default: `OPENAI_BASE_URL`, else `https://api.openai.com/v1`. */
  baseURL?: string
  headers?: Record<string, string>
  /** Retries after the first attempt, for 429, 408, 5xx and connection failures (default 2). */
  maxRetries?: number
  /** Per attempt, request and stream (default 10 minutes). */
  timeoutMs?: number
  temperature?: number
  maxTokens?: number
  fetch?: typeof globalThis.fetch
}

const OPENAI_URL = 'https://api.openai.com/v1'
const PROVIDER = 'OpenAI'

const OPENAI_OPTION_KEYS = optionKeys<OpenAIChatModelOptions>({
  model: true, apiKey: true, baseURL: true, headers: true, maxRetries: true, timeoutMs: true, temperature: true, maxTokens: true, fetch: true,
})

export const openAIChatModel = (options: OpenAIChatModelOptions): ChatModel => {
  if (!options || typeof options.model !== 'string' || !options.model) {
    throw new AgentError('INVALID_OPTION', `openAIChatModel: \`model\` must be a model name such as "gpt-4o-mini"; received ${JSON.stringify(options?.model)}.`)
  }
  checkKnownKeys('openAIChatModel', options, OPENAI_OPTION_KEYS)
  const baseURL = checkBaseURL('openAIChatModel', options.baseURL ?? env('OPENAI_BASE_URL') ?? OPENAI_URL).replace(/\/+$/, '')
  const apiKey = options.apiKey ?? env('OPENAI_API_KEY')
  const official = /^https:\/\/api\.openai\.com\//.test(`${baseURL}/`)
  return {
    name: options.model,
    async *stream(request, { signal }) {
      if (!apiKey && official) {
        throw new ModelError({ type: 'setup', message: 'OpenAI: no API key: pass `apiKey` to openAIChatModel or set OPENAI_API_KEY.' })
      }
      const body = openAIRequestBody(request, {
        model: options.model,
        temperature: options.temperature,
        maxTokens: options.maxTokens,
        maxTokensField: official ? 'max_completion_tokens' : 'max_tokens',
      })
      yield* streamChunks({
        provider: PROVIDER,
        url: `${baseURL}/chat/completions`,
        headers: {
          'content-type': 'application/json',
          accept: 'text/event-stream',
          ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
          ...options.headers,
        },
        body,
        maxRetries: options.maxRetries ?? 2,
        timeoutMs: options.timeoutMs ?? 600_000,
        fetch: options.fetch ?? globalThis.fetch,
        secrets: apiKey ? [apiKey] : [],
        decoder: openAIDecoder,
      }, signal)
    },
  }
}

interface ToolCallDelta { index?: number; id?: string; function?: { name?: string; arguments?: string } }
interface ChoiceDelta {
  content?: string | null; reasoning_content?: string | null; reasoning?: string | null; refusal?: string | null; tool_calls?: ToolCallDelta[]
  images?: { image_url?: { url?: unknown } }[]
}

/** An image as a `data:` URL -> a data chunk; other URLs are not streamed data and are left out. */
const imageChunk = (url: unknown): ModelChunk | null => {
  const match = typeof url === 'string' ? /^data:([^;,]+);base64,(.*)$/s.exec(url) : null
  return match ? { type: 'data', media_type: match[1], data: match[2] } : null
}
interface Usage { prompt_tokens?: number; completion_tokens?: number; prompt_tokens_details?: { cached_tokens?: number } | null; prompt_cache_hit_tokens?: number }

/** Decodes one response's `chat.completion.chunk` events. */
export const openAIDecoder = (): SSEDecoder => {
  const calls = new Map<number, { id: string; name: string; sent: string }>()
  let finished = false
  return {
    event({ data }) {
      if (data.trim() === '[DONE]') {
        finished = true
        return []
      }
      const json = parseEventData(PROVIDER, data)
      if (json.error || json.object === 'error') throw streamError(json)
      const out: ModelChunk[] = []
      const choices = Array.isArray(json.choices) ? json.choices as Array<{ delta?: ChoiceDelta; finish_reason?: string | null }> : []
      const choice = choices[0]
      const delta = choice?.delta ?? {}
      const reasoning = delta.reasoning_content ?? delta.reasoning
      if (typeof reasoning === 'string' && reasoning) out.push({ type: 'thinking', delta: reasoning })
      if (typeof delta.content === 'string' && delta.content) out.push({ type: 'text', delta: delta.content })
      if (typeof delta.refusal === 'string' && delta.refusal) out.push({ type: 'text', delta: delta.refusal })
      for (const image of Array.isArray(delta.images) ? delta.images : []) {
        const chunk = imageChunk(image?.image_url?.url)
        if (chunk) out.push(chunk)
      }
      for (const [position, fragment] of (delta.tool_calls ?? []).entries()) {
        const index = fragment.index ?? position
        const name = fragment.function?.name
        const args = fragment.function?.arguments ?? ''
        let call = calls.get(index)
        // Some servers reuse index 0 for every call; a new id with a name starts a new call.
        if (!call || (fragment.id && name && fragment.id !== call.id)) {
          call = { id: fragment.id || `call_${index}_${crypto.randomUUID()}`, name: name ?? '', sent: '' }
          calls.set(index, call)
        } else if (!args) {
          continue
        }
        call.sent += args
        out.push({ type: 'tool_call', id: call.id, name: call.name, delta: args })
      }
      if (choice?.finish_reason) {
        finished = true
        out.push(...closeEmptyCalls())
      }
      const usage = json.usage as Usage | null | undefined
      if (usage && typeof usage === 'object') {
        out.push({
          type: 'usage',
          input_tokens: usage.prompt_tokens ?? 0,
          output_tokens: usage.completion_tokens ?? 0,
          cache_input_tokens: usage.prompt_tokens_details?.cached_tokens ?? usage.prompt_cache_hit_tokens ?? 0,
        })
      }
      return out
    },
    end() {
      if (!finished) throw new ModelError({ type: 'upstream', message: 'OpenAI: malformed stream: it ended before a finish_reason or [DONE].' })
      return []
    },
  }
  /** A call with no arguments at all would reach the tools as '', which is not JSON. */
  function closeEmptyCalls(): ModelChunk[] {
    return [...calls.values()].filter((call) => call.sent === '').map((call) => {
      call.sent = '{}'
      return { type: 'tool_call', id: call.id, name: call.name, delta: '{}' }
    })
  }
}

const STREAM_ERROR_TYPES: Record<string, ErrorType> = {
  invalid_request_error: 'invalid_request',
  authentication_error: 'authentication',
  invalid_api_key: 'authentication',
  permission_error: 'permission',
  rate_limit_exceeded: 'rate_limit',
  rate_limit_error: 'rate_limit',
  insufficient_quota: 'rate_limit',
}

/** An error object sent inside the stream: `{error: {message, type, code}}` (vLLM: `{object: 'error', ...}`). */
const streamError = (json: Record<string, unknown>): ModelError => {
  const error = (typeof json.error === 'object' && json.error ? json.error : typeof json.error === 'string' ? { message: json.error } : json) as
    { message?: unknown; type?: unknown; code?: unknown }
  const code = typeof error.code === 'number' ? error.code : Number.parseInt(String(error.code ?? ''), 10)
  const type = STREAM_ERROR_TYPES[String(error.type)] ?? STREAM_ERROR_TYPES[String(error.code)]
    ?? (code >= 400 && code < 600 ? statusType(code) : 'upstream')
  const message = typeof error.message === 'string' && error.message ? error.message : JSON.stringify(json).slice(0, 300)
  return new ModelError({ type, message: `OpenAI stream error: ${message}` }, Number.isFinite(code) ? code : undefined)
}
