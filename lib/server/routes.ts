// The routes of createServer, as "METHOD /template" keys (`:id` for a session id): the server's
// dispatch switches on them, and its metrics name a request by the template it matched (the
// conventions' `http.route`), never by the raw path, so junk paths make no new series.
export const ROUTES = [
  'POST /sessions', 'GET /sessions', 'GET /sessions/:id', 'GET /sessions/:id/waiting', 'DELETE /sessions/:id',
  'POST /sessions/:id/replies', 'GET /sessions/:id/children', 'GET /sessions/:id/events', 'POST /sessions/:id/interrupt',
  'POST /sessions/:id/input', 'POST /sessions/:id/ag-ui', 'POST /ag-ui', 'GET /sessions/:id/tools', 'POST /sessions/:id/fork',
] as const

export type Route = (typeof ROUTES)[number]

const KNOWN: ReadonlySet<string> = new Set(ROUTES)

/** The key of a request's method and path segments: the second segment under /sessions is the id. */
export const routeKey = (method: string, parts: readonly string[]): string =>
  `${method} /${parts.map((p, i) => (i === 1 && parts[0] === 'sessions' ? ':id' : p)).join('/')}`

/** The template a request matches ("/sessions/:id/replies"), or null when it matches no route. */
export const matchedRoute = (method: string, pathname: string): string | null => {
  const key = routeKey(method, pathname.split('/').filter(Boolean))
  return KNOWN.has(key) ? key.slice(key.indexOf(' ') + 1) : null
}
