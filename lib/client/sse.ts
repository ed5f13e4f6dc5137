// Reading a server-sent event stream from a fetch Response (browser and Node): each event's data
// parsed as JSON with its `id` and `event` name. An `event: error` carries the server's coded
// refusal and is thrown as an AgentError.
import { createParser } from 'eventsource-parser'
import { AgentError, type AgentErrorCode } from '../errors.js'

export interface SseMessage {
  id?: string
  data: unknown
}

export async function* readSse(response: Response): AsyncGenerator<SseMessage> {
  if (!response.body) return
  const reader = response.body.getReader()
  const decoder = new TextDecoder()
  const queue: SseMessage[] = []
  let failure: AgentError | null = null
  const parser = createParser({
    onEvent: (event) => {
      const data = JSON.parse(event.data) as unknown
      if (event.event === 'error') {
        const { code, message } = data as { code: AgentErrorCode; message: string }
        failure = new AgentError(code, message)
      } else queue.push({ id: event.id, data })
    },
  })
  try {
    for (;;) {
      const { done, value } = await reader.read()
      parser.feed(done ? `${decoder.decode()}\n\n` : decoder.decode(value, { stream: true }))
      while (queue.length) yield queue.shift()!
      if (failure) throw failure
      if (done) return
    }
  } finally {
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
  return new AgentError(response.status === 401 ? 'UNAUTHORIZED' : 'INTERNAL', `The server answered ${response.status} ${response.statusText}.`, { status: response.status })
}
