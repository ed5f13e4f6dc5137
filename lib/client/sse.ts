// Reading a server-sent event stream from a fetch Response (browser and Node): each event's data
// parsed as JSON with its `id` and `event` name. An `event: error` carries the server's coded
// refusal and is thrown as an AgentError; data that is not JSON is INVALID_EVENT; a line longer
// than `maxLineBytes` ends the stream with TOO_LARGE instead of being buffered without bound.
import { createParser } from 'eventsource-parser'
import { AgentError, type AgentErrorCode } from '../core/errors.js'

export interface SseMessage {
  id?: string
  data: unknown
}

export interface ReadSseOptions {
  /** The longest line accepted, in bytes (default DEFAULT_MAX_LINE_BYTES). */
  maxLineBytes?: number
  /** Aborting it ends the stream at once (the body is cancelled), even while the server sends nothing. */
  signal?: AbortSignal
}

export const DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024

const LF = 0x0a
const CR = 0x0d

/** The bytes after the last line break of `chunk`, or -1 when it holds none. */
const afterLastBreak = (chunk: Uint8Array): number => {
  const at = Math.max(chunk.lastIndexOf(LF), chunk.lastIndexOf(CR))
  return at < 0 ? -1 : chunk.byteLength - at - 1
}

export async function* readSse(response: Response, { maxLineBytes = DEFAULT_MAX_LINE_BYTES, signal }: ReadSseOptions = {}): AsyncGenerator<SseMessage> {
  if (!response.body) return
  const reader = response.body.getReader()
  const cancel = () => void reader.cancel().catch(() => {})
  if (signal?.aborted) cancel()
  signal?.addEventListener('abort', cancel)
  const decoder = new TextDecoder()
  const queue: SseMessage[] = []
  let failure: AgentError | null = null
  let lineBytes = 0
  const parser = createParser({
    onEvent: (event) => {
      if (failure) return
      let data: unknown
      try {
        data = JSON.parse(event.data)
      } catch {
        failure = new AgentError('INVALID_EVENT', `The server sent an event whose data is not JSON (${event.data.length} characters${event.id ? `, id ${event.id}` : ''}).`)
        return
      }
      if (event.event === 'error') {
        const { code, message } = (data ?? {}) as { code?: AgentErrorCode; message?: string }
        failure = new AgentError(typeof code === 'string' ? code : 'INTERNAL', typeof message === 'string' ? message : 'The stream failed on the server.')
      } else queue.push({ id: event.id, data })
    },
  })
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (value) {
        const tail = afterLastBreak(value)
        lineBytes = tail < 0 ? lineBytes + value.byteLength : tail
        if (lineBytes > maxLineBytes)
          throw new AgentError('TOO_LARGE', `The server sent a line longer than ${maxLineBytes} bytes; the stream was ended (raise maxLineBytes if such events are expected).`)
      }
      // At the end, an event without its closing blank line was cut: it is dropped, as EventSource does.
      parser.feed(done ? decoder.decode() : decoder.decode(value, { stream: true }))
      while (queue.length) yield queue.shift()!
      if (failure) throw failure
      if (done) return
    }
  } finally {
    signal?.removeEventListener('abort', cancel)
    await reader.cancel().catch(() => {})
  }
}

/** A refused request as the AgentError the server sent (`{ code, message }`), or a generic one. */
export const responseError = async (response: Response): Promise<AgentError> => {
  const text = await response.text().catch(() => '')
  try {
    const { code, message } = JSON.parse(text) as { code?: AgentErrorCode; message?: string }
    if (code && message) return new AgentError(code, message, { status: response.status })
  } catch {
    // not JSON: fall through
  }
  const code: AgentErrorCode = response.status === 401 ? 'UNAUTHORIZED' : response.status === 404 ? 'NOT_FOUND' : 'INTERNAL'
  return new AgentError(code, `The server answered ${response.status} ${response.statusText}.`, { status: response.status })
}
