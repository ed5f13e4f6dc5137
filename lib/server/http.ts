// HTTP plumbing of the server: JSON responses, a coded error as `{ code, message }` with the status
// that fits it and without the server's internals (file paths, addresses), and reading a JSON body
// (application/json only) within a byte limit and a nesting depth. Web-standard Request/Response
// only, so the handler mounts in Node, Hono, Next.js or a worker.
import { AgentError, type AgentErrorCode } from '../core/errors.js'
import { jsonDepth, MAX_JSON_DEPTH } from '../core/jsonValue.js'

const STATUS: Partial<Record<AgentErrorCode, number>> = {
  UNAUTHORIZED: 401, FORBIDDEN: 403, UNSUPPORTED_MEDIA_TYPE: 415, NOT_FOUND: 404, NO_ROUTE: 404, TOO_LARGE: 413, LIMIT_REACHED: 429,
  REPLY_RUNNING: 409, REPLY_PAUSED: 409, NOT_PAUSED: 409, WRONG_REPLY: 409, CALL_CLOSED: 409, NOT_ASKING: 409,
  NOT_SUBMITTED: 409, LOG_CONFLICT: 409, SESSION_EXISTS: 409, SESSION_BUSY: 409,
  LOG_UNAVAILABLE: 503, CLOSED: 503, LOG_LOCKED: 503, INTERNAL: 500,
}

/** The HTTP status of a coded refusal (400 for bad input of any other kind). */
export const statusOf = (code: AgentErrorCode): number => STATUS[code] ?? 400

export const json = (body: unknown, status = 200, headers: Record<string, string> = {}): Response =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json; charset=utf-8', ...headers } })

/**
 * What a response may not show of a message: connection strings and URLs, absolute file paths
 * (routes of this API excepted), IP addresses and host:port pairs, and the host after a network
 * error code. Each is replaced by a placeholder naming its kind.
 */
const INTERNALS: [RegExp, string][] = [
  [/\b[a-z][a-z0-9+.-]*:\/\/[^\s'"`]+/gi, '<url>'],
  [/(?<![\w.~/-])(?:[A-Za-z]:)?[\\/](?!(?:sessions|ag-ui)\b)[^\s'"`,;()<>]+/g, '<path>'],
  [/\b(E(?:CONNREFUSED|NOTFOUND|AI_AGAIN|TIMEDOUT|HOSTUNREACH|NETUNREACH|CONNRESET|ADDRNOTAVAIL)) \S+/g, '$1'],
  [/\[[0-9A-Fa-f:.]+\](?::\d+)?|\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b/g, '<address>'],
  [/\b[\w-]+(?:\.[\w-]+)*:\d{2,5}\b/g, '<address>'],
]

/** The message without the server's internals; `scrubbed` says whether anything was taken out. */
export const publicMessage = (message: string): { message: string; scrubbed: boolean } => {
  let out = message
  for (const [pattern, replacement] of INTERNALS) out = out.replace(pattern, replacement)
  return { message: out, scrubbed: out !== message }
}

/**
 * What a client is told of an error: an AgentError's code and its message without internals;
 * anything else is INTERNAL without its message (it may carry a secret from user code or a
 * driver). `internal` says the server's own log should hear the error in full.
 */
export const publicError = (error: unknown): { code: string; message: string; status: number; internal: boolean } => {
  if (!(error instanceof AgentError))
    return { code: 'INTERNAL', message: 'The server failed while handling the request; its own log has the details.', status: 500, internal: true }
  const status = statusOf(error.code)
  const fixed = FIXED_MESSAGES[error.code]
  if (fixed !== undefined) return { code: error.code, message: fixed, status, internal: true }
  const { message, scrubbed } = publicMessage(error.message)
  return { code: error.code, message, status, internal: status >= 500 || (scrubbed && !EDGE_REFUSALS.has(error.code)) }
}

/** Codes whose message names the server's own processes, hosts and files (a lock's holder): a client gets a fixed text, the server's log the full one. */
const FIXED_MESSAGES: Partial<Record<AgentErrorCode, string>> = {
  LOG_LOCKED: 'The session\'s log is open for writing by another writer (another process or agent of the server); retry later, or send the request through the hub. The server\'s log names the holder.',
}

/** A listed session's damage as a client may see it: its code, and its message like an error's (`internal`: the server's log should hear the full one). */
export const publicDamage = (damage: { code: string; message: string }): { damage: { code: string; message: string }; internal: boolean } => {
  const { message, internal } = publicError(new AgentError(damage.code as AgentErrorCode, damage.message))
  return { damage: { code: damage.code, message }, internal: internal && message !== damage.message }
}

/** Refusals the server makes of the request itself: what they take out of a message is what the client sent. */
const EDGE_REFUSALS: ReadonlySet<string> = new Set(['FORBIDDEN', 'UNAUTHORIZED', 'NO_ROUTE', 'UNSUPPORTED_MEDIA_TYPE', 'TOO_LARGE', 'LIMIT_REACHED', 'INVALID_INPUT', 'INVALID_SESSION_ID'])

/** A JSON media type: application/json or a structured `+json` type, with any parameters. */
const JSON_TYPE = /^application\/(?:[\w.-]+\+)?json\s*(?:;|$)/i

const notJson = (type: string | null) =>
  new AgentError('UNSUPPORTED_MEDIA_TYPE', `The body must be sent as application/json; received ${type === null ? 'no content-type' : JSON.stringify(type.slice(0, 80))}.`)

/**
 * Reads the body as JSON, refusing another content type (UNSUPPORTED_MEDIA_TYPE), more than
 * `limit` bytes (TOO_LARGE), and text that is not JSON or nests deeper than MAX_JSON_DEPTH
 * (INVALID_INPUT). An empty body is `empty` when given (with or without a content type), else refused.
 */
export const readJson = async (request: Request, limit: number, empty?: unknown): Promise<unknown> => {
  const type = request.headers.get('content-type')
  if (type !== null && !JSON_TYPE.test(type)) throw notJson(type)
  const declared = Number(request.headers.get('content-length') ?? NaN)
  if (declared > limit) throw tooLarge(declared, limit)
  if (!request.body) {
    if (empty !== undefined) return empty
    throw new AgentError('INVALID_INPUT', 'The request has no body; send JSON.')
  }
  const reader = request.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read().catch(() => {
      throw new AgentError('INVALID_INPUT', `The body ended before its end (the connection was cut after ${size} bytes); send it again.`)
    })
    if (done) break
    size += value.byteLength
    if (size > limit) {
      await reader.cancel()
      throw tooLarge(size, limit)
    }
    chunks.push(value)
  }
  const bytes = new Uint8Array(size)
  let at = 0
  for (const chunk of chunks) {
    bytes.set(chunk, at)
    at += chunk.byteLength
  }
  if (size === 0 && empty !== undefined) return empty
  if (type === null) throw notJson(type)
  const text = new TextDecoder().decode(bytes)
  if (jsonDepth(text) > MAX_JSON_DEPTH) throw new AgentError('INVALID_INPUT', `The body nests deeper than ${MAX_JSON_DEPTH} levels; send flatter JSON.`)
  try {
    return JSON.parse(text)
  } catch {
    throw new AgentError('INVALID_INPUT', `The body is not valid JSON (${size} bytes); send application/json.`)
  }
}

const tooLarge = (size: number, limit: number) =>
  new AgentError('TOO_LARGE', `The body has ${size} bytes or more; this server accepts at most ${limit} (limits.bodyBytes).`)
