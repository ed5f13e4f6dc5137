// The server's limits, their defaults, and the counters that enforce the per-session and
// per-process ones with a coded refusal (LIMIT_REACHED, TOO_LARGE). Counters hold an entry only
// while a session has open streams, so memory does not grow with the sessions served.
import { AgentError } from '../core/errors.js'
import { checkKnownKeys } from '../core/strictOptions.js'

export interface ServerLimits {
  /** Largest request body, in bytes (default 1 MiB). */
  bodyBytes: number
  /** Largest input (a message or an input event) as JSON, in bytes (default 256 KiB). */
  messageBytes: number
  /** Open event streams per session (default 16). */
  sseClientsPerSession: number
  /** Open event streams (GET /events) in this process, over all sessions (default 1024). */
  eventStreams: number
  /** Replies this process streams at once (default 256). */
  openReplies: number
  /** Bytes queued for one SSE reader before it is dropped (default 1 MiB). */
  sseHighWaterBytes: number
  /** Interval of keep-alive comments on idle streams (default 15 s). */
  keepAliveMs: number
}

export const DEFAULT_LIMITS: ServerLimits = {
  bodyBytes: 1 << 20, messageBytes: 256 << 10, sseClientsPerSession: 16, eventStreams: 1024, openReplies: 256, sseHighWaterBytes: 1 << 20, keepAliveMs: 15_000,
}

export const resolveLimits = (given: Partial<ServerLimits> = {}): ServerLimits => {
  checkKnownKeys('createServer limits', given, Object.keys(DEFAULT_LIMITS))
  const limits = { ...DEFAULT_LIMITS, ...given }
  for (const [name, value] of Object.entries(limits))
    if (!(Number.isInteger(value) && value > 0)) throw new AgentError('INVALID_OPTION', `createServer: limits.${name} must be a whole number above 0; received ${String(value)}.`)
  return limits
}

/** Counts open things per key and refuses past `max`; `acquire` returns the release function. */
export const counter = (what: string, max: number) => {
  const counts = new Map<string, number>()
  return {
    acquire(key: string): () => void {
      const n = counts.get(key) ?? 0
      if (n >= max) throw new AgentError('LIMIT_REACHED', `Too many ${what} (${max}); close one or retry later.`)
      counts.set(key, n + 1)
      let released = false
      return () => {
        if (released) return
        released = true
        const left = (counts.get(key) ?? 1) - 1
        if (left) counts.set(key, left)
        else counts.delete(key)
      }
    },
  }
}

/** Refuses an input whose JSON is larger than the limit. */
export const checkInputSize = (input: unknown, limit: number): void => {
  const size = new TextEncoder().encode(JSON.stringify(input) ?? '').byteLength
  if (size > limit) throw new AgentError('TOO_LARGE', `The input is ${size} bytes as JSON; this server accepts at most ${limit} (limits.messageBytes).`)
}
