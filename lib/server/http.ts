// HTTP plumbing of the server: JSON responses, a coded error as `{ code, message }` with the status
// that fits it, and reading a JSON body within a byte limit. Web-standard Request/Response only, so
// the handler mounts in Node, Hono, Next.js or a worker.
import { AgentError, type AgentErrorCode } from '../errors.js'

const STATUS: Partial<Record<AgentErrorCode, number>> = {
  UNAUTHORIZED: 401, FORBIDDEN: 403, NOT_FOUND: 404, NO_ROUTE: 404, TOO_LARGE: 413, LIMIT_REACHED: 429,
  REPLY_RUNNING: 409, REPLY_PAUSED: 409, NOT_PAUSED: 409, WRONG_REPLY: 409, CALL_CLOSED: 409, NOT_ASKING: 409,
  NOT_SUBMITTED: 409, LOG_CONFLICT: 409, SESSION_EXISTS: 409, SESSION_BUSY: 409,
  LOG_UNAVAILABLE: 503, CLOSED: 503, LOG_LOCKED: 503, INTERNAL: 500,
}

/** The HTTP status of a coded refusal (400 for bad input of any other kind). */
export const statusOf = (code: AgentErrorCode): number => STATUS[code] ?? 400

export const json = (body: unknown, status = 200, headers: Record<string, string> = {}): Response =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json; charset=utf-8', ...headers } })

/**
 * An error as a response. Only an AgentError's own code and message are shown; anything else is
 * reported as INTERNAL without its message (it may carry a secret from user code or a driver).
 */
export const errorResponse = (error: unknown): Response => {
  if (error instanceof AgentError) return json({ code: error.code, message: error.message }, statusOf(error.code))
  return json({ code: 'INTERNAL', message: 'The server failed while handling the request; the session log is unchanged by this request.' }, 500)
}

/**
 * Reads the body as JSON, refusing more than `limit` bytes (TOO_LARGE) and text that is not JSON
 * (INVALID_INPUT). An empty body is `empty` when given, else refused.
 */
export const readJson = async (request: Request, limit: number, empty?: unknown): Promise<unknown> => {
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
    const { done, value } = await reader.read()
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
  try {
    return JSON.parse(new TextDecoder().decode(bytes))
  } catch {
    throw new AgentError('INVALID_INPUT', `The body is not valid JSON (${size} bytes); send application/json.`)
  }
}

const tooLarge = (size: number, limit: number) =>
  new AgentError('TOO_LARGE', `The body has ${size} bytes or more; this server accepts at most ${limit} (limits.bodyBytes).`)
