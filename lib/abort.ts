// Abort helpers shared by the scripted model, the adapters and tools: an abortable sleep and the
// standard DOMException-style abort error.

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
