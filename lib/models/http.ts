// The HTTP side of the model adapters: one streaming POST per attempt, parsed as server-sent events
// (eventsource-parser) and turned into chunks by the adapter's decoder. Owns retries (429, 408, 5xx
// and connection failures, only before the first chunk reached the consumer), the per-attempt
// timeout, the caller's AbortSignal (aborts the fetch, the body read and a backoff wait at once,
// and rejects with an AbortError), and the mapping of HTTP failures to ModelError types, with
// credentials redacted from their messages. Redirects: see credentials.ts.
import { createParser, type EventSourceMessage } from 'eventsource-parser'
import { abortError, sleep } from '../core/abort.js'
import { ModelError } from '../core/errors.js'
import { redactSecrets } from '../core/redact.js'
import { fetchWithoutLeaks } from './credentials.js'
import type { ErrorType } from '../core/messages.js'
import type { ModelChunk } from './model.js'

/** Turns one attempt's events into chunks; a fresh decoder is made for every attempt. */
export interface SSEDecoder {
  /** The chunks for one event; throws a ModelError for an error sent inside the stream. */
  event(message: EventSourceMessage): ModelChunk[]
  /** Called when the body ended; throws a ModelError when the stream stopped before it was complete. */
  end(): ModelChunk[]
}

export interface StreamCall {
  /** A label for messages: 'OpenAI', 'Anthropic'. */
  provider: string
  url: string
  headers: Record<string, string>
  body: unknown
  maxRetries: number
  timeoutMs: number
  fetch: typeof globalThis.fetch
  decoder: () => SSEDecoder
  /** Credentials (the API key) to take out of error messages, which a provider's body may echo. */
  secrets?: readonly string[]
}

const BASE_DELAY_MS = 500
const MAX_DELAY_MS = 8_000
const MAX_SERVER_DELAY_MS = 60_000

/** Errors worth another attempt, with the delay the server asked for (undefined: our backoff). */
const retryable = new WeakMap<ModelError, { delayMs?: number }>()

const retryableError = (error: ModelError, delayMs?: number): ModelError => {
  retryable.set(error, { delayMs })
  return error
}

/** Streams the chunks of `call`, retrying transient failures until the first chunk is delivered. */
export async function* streamChunks(call: StreamCall, signal: AbortSignal): AsyncGenerator<ModelChunk> {
  let delivered = false
  for (let attempt = 0; ; attempt++) {
    try {
      for await (const chunk of streamAttempt(call, signal)) {
        delivered = true
        yield chunk
      }
      return
    } catch (error) {
      if (signal.aborted) throw abortError(signal)
      const retry = error instanceof ModelError ? retryable.get(error) : undefined
      if (!retry || delivered || attempt >= call.maxRetries) throw redacted(error, call.secrets ?? [])
      await sleep(retry.delayMs ?? backoffMs(attempt), signal)
    }
  }
}

async function* streamAttempt(call: StreamCall, signal: AbortSignal): AsyncGenerator<ModelChunk> {
  if (signal.aborted) throw abortError(signal)
  const controller = new AbortController()
  let timedOut = false
  const onAbort = () => controller.abort(signal.reason)
  signal.addEventListener('abort', onAbort, { once: true })
  const timer = setTimeout(() => {
    timedOut = true
    controller.abort()
  }, call.timeoutMs)
  /** Network steps fail as a (retryable) connection error, an AbortError or a timeout. */
  const network = async <T>(step: () => Promise<T>): Promise<T> => {
    try {
      return await step()
    } catch (error) {
      if (signal.aborted) throw abortError(signal)
      if (error instanceof ModelError) throw error
      if (timedOut) throw retryableError(new ModelError({ type: 'connection', message: `${call.provider}: the request timed out after ${call.timeoutMs} ms.` }))
      throw retryableError(new ModelError({ type: 'connection', message: `${call.provider}: connection failed: ${causeOf(error)}.` }))
    }
  }
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined
  let complete = false
  try {
    const init = { method: 'POST', headers: call.headers, body: JSON.stringify(call.body), signal: controller.signal }
    const response = await network(() => fetchWithoutLeaks(call.fetch, call.provider, call.url, init))
    if (!response.ok) throw await network(() => httpError(call.provider, response))
    if (!response.body) throw new ModelError({ type: 'upstream', message: `${call.provider}: the response has no body.` })
    reader = response.body.getReader()
    const decoder = call.decoder()
    const text = new TextDecoder()
    const events: EventSourceMessage[] = []
    const parser = createParser({ onEvent: (event) => events.push(event) })
    for (;;) {
      const { done, value } = await network(() => reader!.read())
      // At the end, a blank line dispatches a last event the server did not terminate.
      parser.feed(done ? `${text.decode()}\n\n` : text.decode(value, { stream: true }))
      for (const event of events.splice(0)) yield* decoder.event(event)
      if (done) break
    }
    complete = true
    yield* decoder.end()
  } finally {
    clearTimeout(timer)
    signal.removeEventListener('abort', onAbort)
    if (!complete) {
      // The consumer stopped, the signal fired or the stream failed: drop the connection now.
      reader?.cancel().catch(() => {})
      controller.abort()
    }
  }
}

/** The ModelError for a non-2xx response, with the provider's message from the JSON body. */
export const httpError = async (provider: string, response: Response): Promise<ModelError> => {
  const { status } = response
  const text = await response.text().catch(() => '')
  const error = new ModelError({ type: statusType(status), message: `${provider} API error ${status}: ${bodyMessage(text)}` }, status)
  const retry = status === 408 || status === 429 || status >= 500
  return retry ? retryableError(error, serverDelayMs(response.headers)) : error
}

export const statusType = (status: number): ErrorType =>
  status === 401 ? 'authentication'
    : status === 403 ? 'permission'
      : status === 429 ? 'rate_limit'
        : status === 408 ? 'connection'
          : status >= 500 ? 'upstream'
            : status >= 400 ? 'invalid_request'
              : 'unknown'

/** The message of an error body: `{error: {message}}`, `{error: "..."}`, `{message}`, `{detail}` or the text. */
export const bodyMessage = (text: string): string => {
  try {
    const json = JSON.parse(text) as Record<string, unknown>
    const error = json?.error as Record<string, unknown> | string | undefined
    if (typeof error === 'string') return error
    if (typeof error?.message === 'string') return error.message
    if (typeof json.message === 'string') return json.message
    if (typeof json.detail === 'string') return json.detail
  } catch {
    // not JSON: fall through to the raw text
  }
  return text.trim().slice(0, 500) || '(empty body)'
}

/** The delay a server asked for in `retry-after-ms` or `Retry-After` (seconds or an HTTP date). */
export const serverDelayMs = (headers: Headers, now = Date.now()): number | undefined => {
  const ms = Number.parseFloat(headers.get('retry-after-ms') ?? '')
  const after = headers.get('retry-after')
  let delay = Number.isFinite(ms) ? ms : undefined
  if (delay === undefined && after) {
    const seconds = Number.parseFloat(after)
    delay = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(after) - now
  }
  // A missing, unparsable or unreasonable value leaves the choice to our backoff.
  return delay !== undefined && Number.isFinite(delay) && delay >= 0 && delay <= MAX_SERVER_DELAY_MS ? delay : undefined
}

/** Exponential backoff from 500 ms, capped at 8 s, with up to 25% jitter taken off. */
export const backoffMs = (attempt: number, random = Math.random): number =>
  Math.min(BASE_DELAY_MS * 2 ** attempt, MAX_DELAY_MS) * (1 - 0.25 * random())

/** Parses one event's JSON data; anything else is a malformed stream. */
export const parseEventData = (provider: string, data: string): Record<string, unknown> => {
  let json: unknown
  try {
    json = JSON.parse(data)
  } catch {
    json = undefined
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    throw new ModelError({ type: 'upstream', message: `${provider}: malformed stream: expected a JSON object in an event, received ${JSON.stringify(data.slice(0, 80))}.` })
  }
  return json as Record<string, unknown>
}

/** An environment variable, where there is an environment (browsers have none). */
export const env = (name: string): string | undefined =>
  (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.[name] || undefined

/** A ModelError with credentials redacted from its message (anything else as it is). */
const redacted = (error: unknown, secrets: readonly string[]): unknown =>
  error instanceof ModelError ? new ModelError({ type: error.type, message: redactSecrets(error.message, secrets) }, error.status) : error

const causeOf = (error: unknown): string => {
  if (!(error instanceof Error)) return String(error)
  const cause = (error as { cause?: unknown }).cause
  const detail = cause instanceof Error ? cause.message : ''
  return detail && detail !== error.message ? `${error.message} (${detail})` : error.message
}
