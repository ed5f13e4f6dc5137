// Server-sent events over a web ReadableStream: one JSON event per `data:` line with `id: <seq>`,
// keep-alive comments, and a high-water mark on the bytes queued for the reader. A reader that lets
// the queue pass it is dropped (the stream is closed once the queue drains) and resumes with
// from_seq, so a slow client cannot make the server buffer without bound. Frames sent in one turn
// of the event loop go out as one chunk (one socket write); `flush()` sends what is queued at once,
// for control (a reply's end or pause: a Stop's effect does not wait for the turn's bulk to end).

export interface SseSink {
  /** Queues one event; false once the stream is closed (the reader left or was dropped). */
  send(data: unknown, id?: number): boolean
  /** Hands what is queued to the reader now instead of at the end of this turn (after a control event). */
  flush(): void
  /** Sends `event: error` with `{ code, message }` and closes the stream. */
  fail(body: { code: string; message: string }): void
  /** Closes the stream after what is queued. */
  close(): void
  readonly closed: boolean
}

export interface SseOptions {
  keepAliveMs: number
  highWaterBytes: number
  /** Starts producing; returns the teardown run when the stream ends for any reason. */
  start: (sink: SseSink) => (() => void) | void
}

const encoder = new TextEncoder()
/** After the current turn of the event loop; setTimeout where there is no setImmediate (browsers, workers). */
const afterTurn: (run: () => void) => void = typeof setImmediate === 'function' ? (run) => void setImmediate(run) : (run) => void setTimeout(run, 0)
const KEEP_ALIVE = encoder.encode(': keep-alive\n\n')

export const SSE_HEADERS = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache, no-transform', 'x-accel-buffering': 'no' }

/** The text of one event: `id:` when given, then its JSON on one `data:` line. */
const text = (data: unknown, id?: number, name?: string): string =>
  `${name ? `event: ${name}\n` : ''}${id === undefined ? '' : `id: ${id}\n`}data: ${JSON.stringify(data)}\n\n`

/** The bytes of one event. */
export const frame = (data: unknown, id?: number, name?: string): Uint8Array => encoder.encode(text(data, id, name))

export const sseStream = ({ keepAliveMs, highWaterBytes, start }: SseOptions): ReadableStream<Uint8Array> => {
  let closed = false
  let teardown: (() => void) | void
  let timer: ReturnType<typeof setInterval> | undefined
  let controller!: ReadableStreamDefaultController<Uint8Array>
  /**
   * Frames sent in this turn of the event loop, enqueued as one chunk once the turn's work is done
   * (afterTurn, not a microtask: a reply's events arrive over many microtasks of one turn), so a
   * burst costs one encode, one read and one socket write.
   */
  let pending = ''
  let scheduled = false
  const flush = () => {
    if (!pending || closed) return
    controller.enqueue(encoder.encode(pending))
    pending = ''
  }
  const flushScheduled = () => {
    scheduled = false
    flush()
  }
  const finish = () => {
    if (closed) return
    closed = true
    if (timer) clearInterval(timer)
    teardown?.()
  }
  const sink: SseSink = {
    send(data, id) {
      if (closed) return false
      pending += text(data, id)
      if (!scheduled) {
        scheduled = true
        afterTurn(flushScheduled)
      }
      if ((controller.desiredSize ?? 0) - pending.length <= 0) sink.close()
      return !closed
    },
    flush,
    fail(body) {
      if (closed) return
      pending += text(body, undefined, 'error')
      sink.close()
    },
    close() {
      if (closed) return
      flush()
      finish()
      controller.close()
    },
    get closed() {
      return closed
    },
  }
  return new ReadableStream<Uint8Array>({
    start(c) {
      controller = c
      timer = setInterval(() => {
        if (!closed && (controller.desiredSize ?? 0) > 0) controller.enqueue(KEEP_ALIVE)
      }, keepAliveMs)
      teardown = start(sink)
      if (closed) teardown?.()
    },
    cancel: finish,
  }, new ByteLengthQueuingStrategy({ highWaterMark: highWaterBytes }))
}
