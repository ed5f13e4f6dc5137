// instrumentServer: the server's metrics around its fetch handler, with no change inside it:
// request durations (until the response starts), open replies (reply and AG-UI streams) and open
// event streams (/events), counted from the response until its body ends or the client leaves.
// Trace context: the server itself passes a request's `traceparent` to the reply it starts.
import { metrics, type MeterProvider } from '@opentelemetry/api'
import { matchedRoute } from '../server/routes.js'
import { INSTRUMENTATION_SCOPE } from './instrument.js'

type Handler = ((request: Request) => Promise<Response>) & { readonly authenticated?: boolean }

export interface ServerInstrumentOptions {
  /** Default: the global meter provider. */
  meterProvider?: MeterProvider
}

/** The methods the conventions name; any other is recorded as `_OTHER` (a client cannot make new series). */
const METHODS: ReadonlySet<string> = new Set(['CONNECT', 'DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT', 'TRACE'])

const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10]

/** Wraps `createServer(...)`'s handler (or any fetch handler in front of it); keeps its `authenticated` flag. */
export const instrumentServer = <H extends Handler>(handler: H, options: ServerInstrumentOptions = {}): H => {
  const meter = (options.meterProvider ?? metrics.getMeterProvider()).getMeter(INSTRUMENTATION_SCOPE)
  const duration = meter.createHistogram('http.server.request.duration', {
    description: 'Time until the response starts (an SSE stream: until its headers)', unit: 's', advice: { explicitBucketBoundaries: DURATION_BUCKETS },
  })
  const replies = meter.createUpDownCounter('agentlog.server.open_replies', { description: 'Reply streams open (native and AG-UI)', unit: '{reply}' })
  const streams = meter.createUpDownCounter('agentlog.server.open_event_streams', { description: 'Event streams (/events) open', unit: '{stream}' })
  const wrapped = async (request: Request): Promise<Response> => {
    const started = performance.now()
    // The matched template (the conventions' http.route); a path that matches no route has none, so junk paths make no series.
    const route = matchedRoute(request.method, new URL(request.url).pathname)
    let status = 500
    try {
      const response = await handler(request)
      status = response.status
      const open = response.ok && response.body && route ? (route.endsWith('/events') ? streams : route.endsWith('/replies') || route.endsWith('/ag-ui') ? replies : null) : null
      return open ? watchBody(response, open) : response
    } finally {
      duration.record((performance.now() - started) / 1000, { 'http.request.method': METHODS.has(request.method) ? request.method : '_OTHER', ...(route ? { 'http.route': route } : {}), 'http.response.status_code': status })
    }
  }
  return Object.assign(wrapped, { authenticated: handler.authenticated }) as unknown as H
}

/** The same response, counting it open on `counter` until its body ends, fails or is cancelled. */
const watchBody = (response: Response, counter: { add(n: number): void }): Response => {
  const reader = response.body!.getReader()
  let open = true
  const close = () => {
    if (open) counter.add(-1)
    open = false
  }
  counter.add(1)
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read()
        if (done) {
          close()
          controller.close()
        } else controller.enqueue(value)
      } catch (error) {
        close()
        controller.error(error)
      }
    },
    cancel(reason) {
      close()
      return reader.cancel(reason)
    },
  })
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers })
}
