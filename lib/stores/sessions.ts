// What every session store shares: the rule for a valid session id (no path tricks: a directory
// store makes file names of them), the status a session's events leave it in (kept per append, so
// listing never folds a log), the title a session's first user message gives it, and paging over
// session ids in order.
import { AgentError, describe, messageOf } from '../errors.js'
import type { ReplyStatus } from '../../reducers/state.js'
import type { AgentEvent } from '../events.js'
import type { Page, SessionInfo } from '../hub/types.js'

const VALID_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/

/** Returns the id when it is valid; else throws INVALID_SESSION_ID. */
export const checkSessionId = (session_id: unknown): string => {
  if (typeof session_id === 'string' && VALID_ID.test(session_id)) return session_id
  throw new AgentError('INVALID_SESSION_ID', `A session id is 1 to 128 characters of letters, digits, "_", "." and "-", starting with a letter or digit; received ${describe(session_id)}.`)
}

/**
 * A copy of session metadata as JSON; refuses anything but a plain object (INVALID_OPTION), and
 * the NUL character in any key or string (INVALID_INPUT: PostgreSQL's JSON cannot hold it, so no
 * store takes it).
 */
export const checkMetadata = (metadata: unknown): Record<string, unknown> => {
  if (metadata === undefined) return {}
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata))
    throw new AgentError('INVALID_OPTION', `Session metadata must be a plain object; received ${describe(metadata)}.`)
  let nul = false
  const json = JSON.stringify(metadata, (key: string, value: unknown) => {
    if (key.includes('\0') || (typeof value === 'string' && value.includes('\0'))) nul = true
    return value
  })
  if (nul)
    throw new AgentError('INVALID_INPUT', 'Session metadata must not contain the NUL character (\\u0000) in a key or a string; remove it or encode the value (e.g. base64).')
  return JSON.parse(json) as Record<string, unknown>
}

/** The status of a session after an event of `type` (the reducers derive the same at rest). */
export const statusAfter = (status: ReplyStatus, type: string): ReplyStatus => {
  switch (type) {
    case 'USER_MESSAGE':
    case 'REPLY_START':
    case 'USER_CONFIRM_RESULT':
    case 'EXTERNAL_EXECUTION_RESULT':
      return 'running'
    case 'REQUIRE_USER_CONFIRM':
    case 'REQUIRE_EXTERNAL_EXECUTION':
      return 'paused'
    case 'REPLY_END':
      return 'idle'
    default:
      return status
  }
}

/** The longest session title, in characters. */
export const TITLE_LENGTH = 60

/** A session's title from its first user message: the message's text on one line, shortened; undefined for any other event. */
export const titleOf = (event: AgentEvent): string | undefined => {
  if (event.type !== 'USER_MESSAGE') return undefined
  const text = event.msg.content.map((b) => (b.type === 'text' ? b.text : '')).join(' ').replace(/\s+/g, ' ').trim()
  if (!text) return undefined
  return text.length > TITLE_LENGTH ? `${text.slice(0, TITLE_LENGTH - 1).trimEnd()}…` : text
}

export const DEFAULT_PAGE = 100
export const MAX_PAGE = 1000

export const checkPage = (options: { limit?: number; after?: string } = {}): { limit: number; after: string | undefined } => {
  const { limit = DEFAULT_PAGE, after } = options
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE)
    throw new AgentError('INVALID_OPTION', `list: limit must be a whole number from 1 to ${MAX_PAGE}; received ${describe(limit)}.`)
  if (after !== undefined && typeof after !== 'string') throw new AgentError('INVALID_OPTION', `list: after must be the "next" of a previous page; received ${describe(after)}.`)
  return { limit, after }
}

/** A page of sessions in id order, given one more than `limit` (the extra one says a next page exists). */
export const pageOf = (items: SessionInfo[], limit: number): Page<SessionInfo> =>
  items.length > limit ? { items: items.slice(0, limit), next: items[limit - 1].session_id } : { items }

/** A listed session whose files cannot be read: status `damaged`, and the error's code and message. */
export const damagedInfo = (session_id: string, error: unknown): SessionInfo => {
  const code = error instanceof AgentError ? error.code : 'INVALID_LOG'
  const message = error instanceof AgentError ? error.message : `The session's files cannot be read: ${messageOf(error)}`
  const epoch = new Date(0).toISOString()
  return { session_id, created_at: epoch, updated_at: epoch, status: 'damaged', last_seq: 0, metadata: {}, damage: { code, message } }
}

export const notFound = (session_id: string): AgentError =>
  new AgentError('NOT_FOUND', `There is no session ${session_id}; create it first (store.create({ session_id }) or hub.create).`, { session_id })

export const sessionExists = (session_id: string): AgentError =>
  new AgentError('SESSION_EXISTS', `Session ${session_id} exists already; open it, or create one with another id.`, { session_id })

/** `here`: the writer is in this process (nothing to route to: close it first). */
export const sessionBusy = (session_id: string, holder: string, here = false): AgentError =>
  new AgentError('SESSION_BUSY', here
    ? `Session ${session_id} is open for writing by ${holder}; close that writer (agent.close()) first, or use one hub per process.`
    : `Session ${session_id} is open for writing by ${holder}; send the request through the hub (it routes to the owner), or wait until the owner closes it.`, { session_id, here })
