// Errors: one class for programmer errors (bad input to the API, a broken invariant), each with a
// stable `code` and a message saying what happened, what was received and what to do. Domain
// failures (model, tool, network) are events, not exceptions; `ModelError` carries one to callers.
import type { ErrorInfo, ErrorType } from './messages.js'

export type AgentErrorCode =
  | 'INVALID_INPUT' | 'INVALID_OPTION' | 'INVALID_EVENT' | 'REPLY_RUNNING' | 'REPLY_PAUSED'
  | 'NOT_PAUSED' | 'WRONG_REPLY' | 'NOT_ASKING' | 'NOT_SUBMITTED' | 'CALL_CLOSED' | 'UNKNOWN_CALL'
  | 'INVALID_LOG' | 'LOG_CONFLICT' | 'LOG_LOCKED' | 'LOG_VERSION' | 'CLOSED'
  | 'LOG_UNAVAILABLE' | 'SESSION_BUSY' | 'SESSION_EXISTS' | 'NOT_FOUND' | 'INVALID_SESSION_ID'
  | 'MISSING_DEPENDENCY' | 'MCP_CONNECTION' | 'EXPORT_FAILED' | 'MAX_DEPTH'
  | 'UNAUTHORIZED' | 'FORBIDDEN' | 'TOO_LARGE' | 'LIMIT_REACHED' | 'NO_ROUTE' | 'INTERNAL'
  | 'UNSUPPORTED_MEDIA_TYPE' | 'UNREACHABLE' | 'UNKNOWN_QUEUED'

export class AgentError extends Error {
  override name = 'AgentError'
  constructor(readonly code: AgentErrorCode, message: string, readonly data?: unknown) {
    super(message)
  }
}

/** The error a reply rejects with when its model failed; `type` is AgentScope's error type. */
export class ModelError extends Error {
  override name = 'ModelError'
  readonly type: ErrorType
  constructor(info: ErrorInfo, readonly status?: number) {
    super(info.message)
    this.type = info.type
  }
}

/** Rejected by `reply()` on an interrupted reply when `rejectOnInterrupt` is set, after the cleanup. */
export class AbortError extends Error {
  override name = 'AbortError'
  constructor(readonly reply_id: string, message = 'The reply was interrupted.') {
    super(message)
  }
}

/**
 * The message of anything thrown, never throwing itself: user code can throw values `String()`
 * cannot convert (`Object.create(null)`), errors whose `message` getter throws, or revoked proxies.
 */
export const messageOf = (thrown: unknown): string => {
  try {
    if (thrown instanceof Error) return String(thrown.message)
    if (typeof thrown === 'object' && thrown !== null && typeof (thrown as { message?: unknown }).message === 'string') return (thrown as { message: string }).message
    return String(thrown)
  } catch {
    try {
      return `a thrown ${Object.prototype.toString.call(thrown).slice(8, -1)} that cannot be printed`
    } catch {
      return 'a thrown value that cannot be printed'
    }
  }
}

/** A short, safe rendering of a received value for error messages. */
export const describe = (value: unknown): string => {
  if (value === undefined) return 'undefined' // not "undefined undefined"
  if (value === null) return 'null'
  if (Array.isArray(value)) return `an array of ${value.length}`
  if (typeof value === 'object') {
    const type = (value as { type?: unknown }).type
    return typeof type === 'string' ? `an object of type "${type}"` : `an object with keys [${Object.keys(value).slice(0, 6).join(', ')}]`
  }
  const text = typeof value === 'string' ? JSON.stringify(value.slice(0, 60)) : String(value)
  return `${typeof value} ${text}`
}
