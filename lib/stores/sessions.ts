// What every session store shares: the rule for a valid session id (no path tricks: a directory
// store makes file names of them), the status a session's events leave it in (kept per append, so
// listing never folds a log), the title a session's first user message gives it, and paging
// newest first (by start time, then id) with an opaque cursor.
import { AgentError, describe, messageOf } from '../core/errors.js'
import type { ReplyStatus } from '../../reducers/state.js'
import type { AgentEvent } from '../core/events.js'
import type { Page, SessionInfo } from '../hub/types.js'
import { systemClock } from '../core/clock.js'

const VALID_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/

/**
 * The id of a new session when none is given: one format everywhere, the system clock's, which
 * also names an agent's own session and a sub-agent's.
 */
export const newSessionId = (): string => systemClock.id()

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

/** Where a page of sessions ends: its last session's start time and id (a page goes on after it). */
export interface Cursor { created_at: string; session_id: string }

const badCursor = (after: unknown): AgentError =>
  new AgentError('INVALID_INPUT', `list: after must be the "next" of a previous page, as it was returned; received ${describe(after)}. Leave it out to list from the newest session.`)

/** The opaque `next` of a page ending at `cursor` (base64url of JSON: safe in a URL). */
export const encodeCursor = ({ created_at, session_id }: Cursor): string =>
  btoa(JSON.stringify([created_at, session_id])).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')

/** The cursor an `after` holds; INVALID_INPUT when it is not one a page returned. */
export const decodeCursor = (after: string): Cursor => {
  let parsed: unknown
  try {
    parsed = JSON.parse(atob(after.replace(/-/g, '+').replace(/_/g, '/')))
  } catch {
    throw badCursor(after)
  }
  if (!Array.isArray(parsed) || parsed.length !== 2) throw badCursor(after)
  const [created_at, session_id] = parsed as unknown[]
  if (typeof created_at !== 'string' || Number.isNaN(Date.parse(created_at)) || typeof session_id !== 'string' || !VALID_ID.test(session_id)) throw badCursor(after)
  return { created_at, session_id }
}

export const checkPage = (options: { limit?: number; after?: string } = {}): { limit: number; after: Cursor | undefined } => {
  const { limit = DEFAULT_PAGE, after } = options
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE)
    throw new AgentError('INVALID_OPTION', `list: limit must be a whole number from 1 to ${MAX_PAGE}; received ${describe(limit)}.`)
  if (after === undefined) return { limit, after }
  if (typeof after !== 'string') throw badCursor(after)
  return { limit, after: decodeCursor(after) }
}

/** The listing order: newest first (by start time), then by session id in code-unit order. */
export const newestFirst = (a: Cursor, b: Cursor): number =>
  a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : a.session_id < b.session_id ? -1 : a.session_id > b.session_id ? 1 : 0

/** The sessions of a page from all of them (any order): those after `after` in listing order, at most `limit` + 1. */
export const pageFrom = <T extends Cursor>(all: T[], limit: number, after: Cursor | undefined): T[] =>
  all.filter((s) => after === undefined || newestFirst(s, after) > 0).sort(newestFirst).slice(0, limit + 1)

/**
 * A page of sessions in listing order, given one more than `limit` (the extra one says a next page
 * exists); `cursorAt` gives the cursor of the page's last item (default: its own start time and id).
 */
export const pageOf = (items: SessionInfo[], limit: number, cursorAt: (index: number) => Cursor = (i) => items[i]): Page<SessionInfo> =>
  items.length > limit ? { items: items.slice(0, limit), next: encodeCursor(cursorAt(limit - 1)) } : { items }

/** The start time of a session whose files cannot say it. */
export const EPOCH = new Date(0).toISOString()

/** A listed session whose files cannot be read: status `damaged`, and the error's code and message. */
export const damagedInfo = (session_id: string, error: unknown): SessionInfo => {
  const code = error instanceof AgentError ? error.code : 'INVALID_LOG'
  const message = error instanceof AgentError ? error.message : `The session's files cannot be read: ${messageOf(error)}`
  return { session_id, created_at: EPOCH, updated_at: EPOCH, status: 'damaged', last_seq: 0, metadata: {}, damage: { code, message } }
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
