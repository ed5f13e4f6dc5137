// createServer: the HTTP service as one web-standard fetch handler, (Request) => Promise<Response>,
// that mounts in Node's http (agentlog/node's listen), Hono, Next.js or a worker. It checks the
// token and CORS, routes to the native API or the AG-UI endpoint, and turns every refusal into
// JSON `{ code, message }` with its status. It holds no agent logic: the hub does the work.
import { AgentError } from '../errors.js'
import type { Hub } from '../hub/types.js'
import { runAgUi } from './agui.js'
import { checkToken, corsHeaders, preflight } from './guard.js'
import { errorResponse } from './http.js'
import { counter, resolveLimits, type ServerLimits } from './limits.js'
import * as native from './native.js'
import { forkSession, sessionTools, type PageRoutesOptions } from './page.js'

export interface ServerOptions {
  hub: Hub
  /** When set, every route requires `Authorization: Bearer <token>`. */
  token?: string
  /** Origins allowed to call from a browser (default none: CORS off). */
  cors?: { origins: string[] }
  limits?: Partial<ServerLimits>
  /** The hub's store and agent options: adds the web page's routes (a session's tools, fork). */
  page?: PageRoutesOptions
}

/** The handler; `authenticated` says whether it requires a token (listen() checks it for public hosts). */
export type FetchHandler = ((request: Request) => Promise<Response>) & { readonly authenticated: boolean }

export const createServer = ({ hub, token, cors, limits: given, page }: ServerOptions): FetchHandler => {
  if (!hub || typeof hub.session !== 'function') throw new AgentError('INVALID_OPTION', 'createServer needs { hub }: a hub from createHub({ store, agent }).')
  if (token !== undefined && (typeof token !== 'string' || token.length < 8))
    throw new AgentError('INVALID_OPTION', 'createServer: token must be a string of at least 8 characters.')
  const limits = resolveLimits(given)
  const origins = cors?.origins ?? []
  const replies = counter('open replies in this process', limits.openReplies)
  const followers = counter('event streams on this session', limits.sseClientsPerSession)

  const handle = async (request: Request): Promise<Response> => {
    const headers = corsHeaders(request, origins)
    try {
      if (request.method === 'OPTIONS') return preflight(request, origins)
      checkToken(request, token)
      const url = new URL(request.url)
      const ctx = { hub, limits, replies, followers, headers }
      const parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent)
      const route = `${request.method} /${parts.map((p, i) => (i === 1 && parts[0] === 'sessions' ? ':id' : p)).join('/')}`
      const session = () => hub.session(parts[1])
      const pageRoutes = () => {
        if (page) return page
        throw new AgentError('NO_ROUTE', `No route for ${request.method} ${url.pathname}: the web page's routes need createServer({ page: { store, agent } }).`)
      }
      switch (route) {
        case 'POST /sessions': return await native.createSession(ctx, request)
        case 'GET /sessions': return await native.listSessions(ctx, url)
        case 'GET /sessions/:id': return await native.getState(ctx, session())
        case 'DELETE /sessions/:id': return await native.deleteSession(ctx, parts[1])
        case 'POST /sessions/:id/replies': return await native.postReply(ctx, session(), request)
        case 'GET /sessions/:id/events': return await native.followEvents(ctx, session(), request, url)
        case 'POST /sessions/:id/interrupt': return await native.interrupt(ctx, session())
        case 'POST /sessions/:id/input': return await native.postInput(ctx, session(), request)
        case 'POST /sessions/:id/ag-ui': return await runAgUi(ctx, request, parts[1])
        case 'POST /ag-ui': return await runAgUi(ctx, request)
        case 'GET /sessions/:id/tools': return await sessionTools(pageRoutes(), parts[1], headers)
        case 'POST /sessions/:id/fork': return await forkSession(pageRoutes(), parts[1], request, limits.bodyBytes, headers)
        default: throw new AgentError('NO_ROUTE', `No route for ${request.method} ${url.pathname}; see the native API (/sessions...) and POST /ag-ui.`)
      }
    } catch (error) {
      const response = errorResponse(error)
      for (const [name, value] of Object.entries(headers)) response.headers.set(name, value)
      return response
    }
  }
  return Object.assign(handle, { authenticated: token !== undefined })
}

export { DEFAULT_LIMITS, type ServerLimits } from './limits.js'
