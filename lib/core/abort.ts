// Abort helpers shared by the scripted model, the adapters, tools and the remote client: an
// abortable sleep, a pause that an abort cuts short, and the standard DOMException-style abort error.

export const abortError = (signal?: AbortSignal): Error =>
  signal?.reason instanceof Error ? signal.reason : Object.assign(new Error('The operation was aborted.'), { name: 'AbortError' })

/** Resolves after `ms`, or rejects at once when `signal` aborts (and then leaves no timer behind). */
export const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError(signal))
    const onAbort = () => {
      clearTimeout(timer)
      reject(abortError(signal))
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal?.addEventListener('abort', onAbort, { once: true })
  })

/** Resolves after `ms`, or at once when `signal` aborts (the timer is cleared): a wait before trying again. */
export const pause = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer)
      signal.removeEventListener('abort', done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    signal.addEventListener('abort', done)
  })
