// Networks and servers that misbehave, for the remote client's specs: `fetch` wrappers that cut a
// stream, hold one open without its end, hold a request back until released, or answer with a
// body of their own; and the server's state as GET /sessions/:id gives it.
import type { AgentState } from '../../lib/index.js'

export const serverState = async (url: string, id: string) => (await (await fetch(`${url}/sessions/${id}`)).json()) as AgentState

type Rewrite = (response: Response) => Response

/** A fetch (over `base`) whose responses to requests whose URL contains `path` are rewritten by `rewrite` (the first `times` of them). */
export const rewriting = (path: string, rewrite: Rewrite, times = Infinity, base: typeof fetch = fetch): typeof fetch => {
  let left = times
  return async (input, init) => {
    const response = await base(input, init)
    if (!String(input).includes(path) || left-- <= 0 || !response.body) return response
    return rewrite(response)
  }
}

/** The body passed on chunk by chunk until `stop(text)` says a chunk must not be: from it on, nothing more, and the stream stays open. */
export const holdFrom = (stop: (text: string) => boolean): Rewrite => (response) => {
  const reader = response.body!.getReader()
  const decoder = new TextDecoder()
  let holding = false
  const held = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (holding) return new Promise<void>(() => {})
      const { done, value } = await reader.read()
      if (done) return controller.close()
      if (stop(decoder.decode(value, { stream: true }))) {
        holding = true
        return new Promise<void>(() => {})
      }
      controller.enqueue(value)
    },
    cancel: () => reader.cancel(),
  })
  return new Response(held, { status: response.status, headers: response.headers })
}

/** The body cut after `bytes` bytes (mid-event), as a flaky network would. */
export const cutAfter = (bytes: number): Rewrite => (response) => {
  const reader = response.body!.getReader()
  let sent = 0
  const cut = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read()
      if (done) return controller.close()
      const part = value.subarray(0, bytes - sent)
      sent += part.byteLength
      controller.enqueue(part)
      if (sent >= bytes) {
        await reader.cancel()
        controller.close()
      }
    },
    cancel: () => reader.cancel(),
  })
  return new Response(cut, { status: response.status, headers: response.headers })
}

/** The body cut after its first `events` complete events (the connection closes there). */
export const cutAfterEvents = (events: number): Rewrite => (response) => {
  const reader = response.body!.getReader()
  const decoder = new TextDecoder()
  const encoder = new TextEncoder()
  let text = ''
  let done = false
  const cut = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (done) return controller.close()
      const next = await reader.read()
      if (next.done) return controller.close()
      text += decoder.decode(next.value, { stream: true })
      const frames = text.split('\n\n')
      if (frames.length - 1 < events) return
      done = true
      await reader.cancel()
      controller.enqueue(encoder.encode(`${frames.slice(0, events).join('\n\n')}\n\n`))
    },
    cancel: () => reader.cancel(),
  })
  return new Response(cut, { status: response.status, headers: response.headers })
}

/** A fetch whose first `drops` streams of `path` are cut after `bytes` bytes. */
export const flakyFetch = (drops: number, bytes: number, path = '/events'): typeof fetch => rewriting(path, cutAfter(bytes), drops)

/** A fetch that holds requests whose URL contains `path` until `open()`; `asked` resolves on the first such request. */
export const gatedFetch = (path: string) => {
  let open!: () => void
  let asked!: () => void
  const gate = new Promise<void>((resolve) => (open = resolve))
  const first = new Promise<void>((resolve) => (asked = resolve))
  const gated: typeof fetch = async (input, init) => {
    if (String(input).includes(path)) {
      asked()
      await gate
    }
    return fetch(input, init)
  }
  return { fetch: gated, open, asked: first }
}

/** An SSE body of `frames` (each a complete event's text), then open for good. */
export const sseThenOpen = (frames: string[]): Response => {
  const encoder = new TextEncoder()
  let sent = false
  return new Response(new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent) return new Promise<void>(() => {})
      sent = true
      controller.enqueue(encoder.encode(frames.join('')))
    },
  }), { status: 200, headers: { 'content-type': 'text/event-stream' } })
}

/** One SSE frame. */
export const frame = (id: number | undefined, data: string): string => `${id === undefined ? '' : `id: ${id}\n`}data: ${data}\n\n`

/** The body passed on with a pause of `ms` before each chunk (a slow network). */
export const delayed = (ms: number): Rewrite => (response) => {
  const reader = response.body!.getReader()
  const slow = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read()
      await new Promise((resolve) => setTimeout(resolve, ms))
      if (done) return controller.close()
      controller.enqueue(value)
    },
    cancel: () => reader.cancel(),
  })
  return new Response(slow, { status: response.status, headers: response.headers })
}
