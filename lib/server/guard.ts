// Who may call: the bearer token (compared in constant time, never echoed) and CORS for the listed
// origins only. With no token every caller is trusted (the listener binds to loopback then); with
// no origins listed no CORS header is ever sent, so browsers on other origins are refused.
import { AgentError } from '../errors.js'

/** Compares two strings in time that depends only on their lengths, not on where they differ. */
export const safeEqual = (a: string, b: string): boolean => {
  let diff = a.length ^ b.length
  for (let i = 0; i < Math.max(a.length, b.length); i++) diff |= (a.charCodeAt(i) | 0) ^ (b.charCodeAt(i) | 0)
  return diff === 0
}

export const checkToken = (request: Request, token: string | undefined): void => {
  if (token === undefined) return
  const header = request.headers.get('authorization') ?? ''
  const given = header.startsWith('Bearer ') ? header.slice(7) : ''
  if (!header) throw new AgentError('UNAUTHORIZED', 'This server requires a token: send "Authorization: Bearer <token>".')
  if (!safeEqual(given, token)) throw new AgentError('UNAUTHORIZED', 'The bearer token is not the one this server was started with.')
}

const ALLOWED_HEADERS = 'authorization, content-type, last-event-id, accept'
const METHODS = 'GET, POST, DELETE, OPTIONS'

/** The CORS headers for a request from a listed origin (none for others). */
export const corsHeaders = (request: Request, origins: readonly string[]): Record<string, string> => {
  const origin = request.headers.get('origin')
  if (!origin || !(origins.includes(origin) || origins.includes('*'))) return {}
  return { 'access-control-allow-origin': origin, vary: 'Origin', 'access-control-expose-headers': 'content-type' }
}

/** The answer to a preflight: 204 with the allowed methods for a listed origin, 403 otherwise. */
export const preflight = (request: Request, origins: readonly string[]): Response => {
  const headers = corsHeaders(request, origins)
  if (!headers['access-control-allow-origin']) return new Response(null, { status: 403 })
  return new Response(null, { status: 204, headers: { ...headers, 'access-control-allow-methods': METHODS, 'access-control-allow-headers': ALLOWED_HEADERS, 'access-control-max-age': '600' } })
}
