// createServer: the HTTP service as one web-standard fetch handler, (Request) => Promise<Response>,
// that mounts in Node's http (agentlog/node's listen), Hono, Next.js or a worker. It checks the
// Host, the Origin, the token and CORS before anything runs, routes to the native API or the AG-UI
// endpoint, and turns every refusal into JSON `{ code, message }` with its status (internals go to
// the server's own log, not to the client). It holds no agent logic: the hub does the work.
import { AgentError, messageOf } from '../core/errors.js'
import { checkKnownKeys, optionKeys } from '../core/strictOptions.js'
import type { Hub } from '../hub/types.js'
import { runAgUi } from './agui.js'
import { cardFacts, runA2a, serveCard, type A2aEndpoint, type A2aOptions } from './a2a/index.js'
import { checkHost, checkOrigin, checkToken, corsHeaders, preflight } from './guard.js'
import { json, publicError } from './http.js'
import { counter, resolveLimits, type ServerLimits } from './limits.js'
import * as native from './native.js'
import { forkSession, sessionTools, type PageRoutesOptions } from './page.js'
import { treeWaiting } from './tree.js'
import { routeKey, type Route } from './routes.js'

export interface ServerOptions {
  hub: Hub
  /** When set, every route requires `Authorization: Bearer <token>`. */
  token?: string
  /** Origins allowed to call from a browser (default none: CORS off; the server's own origin always may). */
  cors?: { origins: string[] }
  /**
   * Host names (or `name:port`) the server answers to besides loopback ones. Without a token only
   * loopback names and these are served (a rebound DNS name is refused); with a token, when given,
   * only loopback names and these.
   */
  hosts?: string[]
  /** The server's own log: hears every error answered 5xx or shown without its internals, in full (default console.error). */
  log?: (error: unknown, request: { method: string; path: string }) => void
  limits?: Partial<ServerLimits>
  /** The hub's store and agent options: adds the web page's routes (a session's tools, fork). */
  page?: PageRoutesOptions
  /**
   * Serve each agent over A2A 1.0 too: the card at /.well-known/agent-card.json (public; with a
   * token it declares a bearer scheme), JSON-RPC at POST /a2a. `true`: the card from the agent a new
   * session gets; or its name, description and skills (docs/a2a.md).
   */
  a2a?: boolean | A2aOptions
}

/** The handler; `authenticated` says whether it requires a token (listen() checks it for public hosts). */
export type FetchHandler = ((request: Request) => Promise<Response>) & { readonly authenticated: boolean }

const consoleLog: NonNullable<ServerOptions['log']> = (error, { method, path }) =>
  console.error(`agentlog server: ${method} ${path}: ${error instanceof AgentError ? `${error.code} ${error.message}` : messageOf(error)}`)

/** The path's segments, %-decoded; a malformed escape is bad input. */
const segments = (pathname: string): string[] => {
  try {
    return pathname.split('/').filter(Boolean).map(decodeURIComponent)
  } catch {
    throw new AgentError('INVALID_INPUT', 'The path has a malformed %-escape; encode each reserved byte as %XX.')
  }
}

const SERVER_OPTION_KEYS = optionKeys<ServerOptions>({ hub: true, token: true, cors: true, hosts: true, log: true, limits: true, page: true, a2a: true })

export const createServer = (options: ServerOptions): FetchHandler => {
  if (typeof options !== 'object' || options === null) throw new AgentError('INVALID_OPTION', 'createServer needs { hub }: a hub from createHub({ store, agent }).')
  checkKnownKeys('createServer', options, SERVER_OPTION_KEYS)
  checkKnownKeys('createServer cors', options.cors, ['origins'])
  checkKnownKeys('createServer page', options.page, ['store', 'agent'])
  const { hub, token, cors, hosts, limits: given, page, a2a, log = consoleLog } = options
  if (!hub || typeof hub.session !== 'function') throw new AgentError('INVALID_OPTION', 'createServer needs { hub }: a hub from createHub({ store, agent }).')
  if (token !== undefined && (typeof token !== 'string' || token.length < 8))
    throw new AgentError('INVALID_OPTION', 'createServer: token must be a string of at least 8 characters.')
  if (hosts !== undefined && !(Array.isArray(hosts) && hosts.every((h) => typeof h === 'string' && h.length > 0)))
    throw new AgentError('INVALID_OPTION', 'createServer: hosts must be a list of host names (or name:port).')
  if (typeof log !== 'function') throw new AgentError('INVALID_OPTION', 'createServer: log must be a function (error, { method, path }) => void.')
  const allowedHosts = hosts?.map((h) => h.toLowerCase())
  const limits = resolveLimits(given)
  const origins = cors?.origins ?? []
  const replies = counter('open replies in this process', limits.openReplies)
  const followers = counter('event streams on this session', limits.sseClientsPerSession)
  const streams = counter('open event streams in this process', limits.eventStreams)
  if (a2a !== undefined && typeof a2a !== 'boolean' && (typeof a2a !== 'object' || a2a === null))
    throw new AgentError('INVALID_OPTION', 'createServer: a2a must be true or { name?, description?, skills? }.')
  let facts: ReturnType<typeof cardFacts> | null = null
  const card = () => (facts ??= cardFacts(typeof a2a === 'object' ? a2a : {}, page?.agent ?? hub.agent))
  const a2aOn = a2a !== undefined && a2a !== false

  const handle = async (request: Request): Promise<Response> => {
    const headers = corsHeaders(request, origins)
    const url = new URL(request.url)
    const report = (error: unknown) => {
      try {
        log(error, { method: request.method, path: url.pathname })
      } catch {
        // a failing log must not fail the request
      }
    }
    try {
      checkHost(url, token, allowedHosts)
      if (request.method === 'OPTIONS') return preflight(request, origins)
      checkOrigin(request, url, origins)
      const a2aCtx = (): A2aEndpoint => ({ hub, limits, replies, headers, report, card, bearer: token !== undefined })
      // The agent card is public, as A2A expects (it says which scheme the calls need).
      if (a2aOn && request.method === 'GET' && url.pathname === '/.well-known/agent-card.json') return await serveCard(a2aCtx(), url)
      checkToken(request, token)
      const ctx = { hub, limits, replies, followers, streams, headers, report }
      if (a2aOn && url.pathname === '/a2a' && request.method === 'POST') return await runA2a(a2aCtx(), request)
      const parts = segments(url.pathname)
      const route = routeKey(request.method, parts) as Route
      const session = () => hub.session(parts[1])
      const pageRoutes = () => {
        if (page) return page
        throw new AgentError('NO_ROUTE', `No route for ${request.method} ${url.pathname}: the web page's routes need createServer({ page: { store, agent } }).`)
      }
      switch (route) {
        case 'POST /sessions': return await native.createSession(ctx, request)
        case 'GET /sessions': return await native.listSessions(ctx, url)
        case 'GET /sessions/:id': return await native.getState(ctx, session())
        case 'GET /sessions/:id/waiting': return json({ waiting_for: await treeWaiting(hub, parts[1]) }, 200, headers)
        case 'DELETE /sessions/:id': return await native.deleteSession(ctx, parts[1])
        case 'POST /sessions/:id/replies': return await native.postReply(ctx, session(), request, url)
        case 'GET /sessions/:id/children': return await native.getChildren(ctx, session())
        case 'GET /sessions/:id/events': return await native.followEvents(ctx, session(), request, url)
        case 'POST /sessions/:id/interrupt': return await native.interrupt(ctx, session(), request)
        case 'POST /sessions/:id/input': return await native.postInput(ctx, session(), request)
        case 'POST /sessions/:id/ag-ui': return await runAgUi(ctx, request, parts[1])
        case 'POST /ag-ui': return await runAgUi(ctx, request)
        case 'GET /sessions/:id/tools': return await sessionTools(pageRoutes(), parts[1], headers)
        case 'POST /sessions/:id/fork': return await forkSession(pageRoutes(), parts[1], request, limits.bodyBytes, headers)
        default: throw new AgentError('NO_ROUTE', `No route for ${request.method} ${url.pathname}; see the native API (/sessions...) and POST /ag-ui.`)
      }
    } catch (error) {
      const { code, message, status, internal } = publicError(error)
      if (internal) report(error)
      return json({ code, message }, status, headers)
    }
  }
  return Object.assign(handle, { authenticated: token !== undefined })
}

export { DEFAULT_LIMITS, type ServerLimits } from './limits.js'
