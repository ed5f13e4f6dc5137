// Lines from a readline interface, one `next()` at a time (null at end of input, i.e. Ctrl-D),
// with lines typed ahead kept in order, and readline's own Ctrl-C (on a terminal) passed on.
import type { Interface } from 'node:readline'

export const lineReader = (rl: Interface) => {
  const queued: string[] = []
  const waiting: ((line: string | null) => void)[] = []
  let closed = false
  rl.on('line', (line) => {
    const take = waiting.shift()
    if (take) take(line)
    else queued.push(line)
  })
  rl.on('close', () => {
    closed = true
    for (const take of waiting.splice(0)) take(null)
  })
  return {
    next: (): Promise<string | null> => {
      if (queued.length) return Promise.resolve(queued.shift()!)
      if (closed) return Promise.resolve(null)
      return new Promise((resolve) => waiting.push(resolve))
    },
    onSigint: (handler: () => void) => void rl.on('SIGINT', handler),
    close: () => rl.close(),
  }
}
