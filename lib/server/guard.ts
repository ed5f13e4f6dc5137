// Who may call: the bearer token (compared in constant time, never echoed) and CORS for the listed
// origins only. With no token every caller on loopback is trusted, so the Host must then be a
// loopback name or a listed host (a page on another name that rebinds it to 127.0.0.1 is refused).
// A request whose Origin is neither the server's own nor a listed one is refused before it runs (a
// "simple" cross-origin POST needs no preflight); with no origins listed no CORS header is sent.
import { AgentError } from '../core/errors.js'

/** Compares two strings in time that depends only on their lengths, not on where they differ. */
export const safeEqual = (a: string, b: string): boolean => {
  let diff = a.length ^ b.length
  for (let i = 0; i < Math.max(a.length, b.length); i++) diff |= (a.charCodeAt(i) | 0) ^ (b.charCodeAt(i) | 0)
  return diff === 0
}

export const checkToken = (request: Request, token: string | undefined): void => {
  if (token === undefined) return
  const header = request.headers.get('authorization') ?? ''
  const given = /^bearer +/i.exec(header) ? header.replace(/^bearer +/i, '') : ''
  if (!header) throw new AgentError('UNAUTHORIZED', 'This server requires a token: send "Authorization: Bearer <token>".')
  if (!safeEqual(given, token)) throw new AgentError('UNAUTHORIZED', 'The bearer token is not the one this server was started with.')
}

const ALLOWED_HEADERS = 'authorization, content-type, last-event-id, accept, a2a-version, a2a-extensions'
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

/** Loopback names and addresses as URL.hostname spells them (IPv6 in brackets, IPv4-mapped ones in hex). */
const LOOPBACK = /^(?:(?:[a-z0-9-]+\.)*localhost\.?|127(?:\.\d{1,3}){3}|\[::1\]|\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\])$/

/**
 * Refuses a Host this server does not answer to: with no token, any but a loopback name or one of
 * `hosts`; with a token, any host passes unless `hosts` lists some. `hosts` entries are names
 * (any port) or `name:port`.
 */
export const checkHost = (url: URL, token: string | undefined, hosts: readonly string[] | undefined): void => {
  if (token !== undefined && hosts === undefined) return
  const name = url.hostname.toLowerCase()
  if (LOOPBACK.test(name) || hosts?.includes(name) || hosts?.includes(url.host.toLowerCase())) return
  throw new AgentError('FORBIDDEN', token === undefined
    ? `This server has no token, so it answers only loopback host names (localhost, 127.0.0.1, [::1]), not "${url.host}"; list the name in createServer({ hosts }) (serve --allow-host) or set a token.`
    : `This server does not answer to host "${url.host}"; it is not in createServer({ hosts }).`)
}

/**
 * Refuses a request from a browser page on another origin than the server's own or a listed one.
 * A cross-site request without Origin (an <img> or <script> GET) is refused as well: browsers say
 * where it comes from in Sec-Fetch-Site.
 */
export const checkOrigin = (request: Request, url: URL, origins: readonly string[]): void => {
  const origin = request.headers.get('origin')
  if (origin === null) {
    const site = request.headers.get('sec-fetch-site')
    if (site === 'cross-site' || site === 'same-site')
      throw new AgentError('FORBIDDEN', `Requests from other sites' pages (Sec-Fetch-Site: ${site}) without an Origin are refused; call from a listed origin with fetch.`)
    return
  }
  if (origins.includes(origin) || origins.includes('*') || sameHost(origin, url)) return
  throw new AgentError('FORBIDDEN', `Requests from pages on ${origin} are refused: it is not this server's origin and not in createServer({ cors: { origins } }).`)
}

/**
 * The origin names the server's own host and port. The scheme is not compared: behind a proxy that
 * ends TLS the page is https and the request reaching this handler http, on the same host.
 */
const sameHost = (origin: string, url: URL): boolean => {
  try {
    const parsed = new URL(origin)
    return (parsed.protocol === 'http:' || parsed.protocol === 'https:') && parsed.host === url.host
  } catch {
    return false
  }
}
