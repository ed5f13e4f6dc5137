// The benchmarks' models: one that streams as fast as the agent takes it, one that streams until stopped.
import type { ChatModel } from '../../lib/index.js'

/**
 * Streams `deltas` text deltas per reply with no timer (the model is never the bottleneck), giving
 * the event loop a turn every 10 deltas as a network stream does (chunks arrive as I/O).
 */
export const fastModel = (deltas: number): ChatModel => ({
  name: 'bench',
  async *stream() {
    for (let i = 0; i < deltas; i++) {
      if (i % 10 === 9) await new Promise((resolve) => setImmediate(resolve))
      yield { type: 'text', delta: `word${i} ` }
    }
    yield { type: 'usage', input_tokens: 10, output_tokens: deltas }
  },
})

/** Streams one delta every `ms` until stopped. */
export const endlessModel = (everyMs: number): ChatModel => ({
  name: 'bench-endless',
  async *stream(_request, { signal }) {
    for (let i = 0; !signal.aborted; i++) {
      await new Promise((resolve) => setTimeout(resolve, everyMs))
      yield { type: 'text', delta: `w${i} ` }
    }
  },
})
