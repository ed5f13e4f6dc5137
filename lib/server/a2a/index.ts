// The A2A 1.0 endpoint (JSON-RPC binding): POST /a2a takes one JSON-RPC request and answers JSON,
// or SSE for SendStreamingMessage and SubscribeToTask (each event `{ jsonrpc, id, result }`); a
// refusal before the stream starts is a JSON-RPC error in JSON. A request without `A2A-Version: 1.0`
// is refused with the version error (-32009), as the SDK's own server does (no header means 0.3).
// GET /.well-known/agent-card.json serves the card (card.ts).
import { AgentError } from '../../core/errors.js'
import { json, readJson } from '../http.js'
import { SSE_HEADERS, sseStream } from '../sse.js'
import { agentCard, type CardFacts } from './card.js'
import { cancelTask, getTask, listTasks, sendMessage, subscribe, type A2aContext, type TaskRun } from './methods.js'
import { A2A_VERSION, envelope, idOf, parseRequest, RPC, rpcError, RpcError, type RpcId } from './rpc.js'
import { taskJson } from './tasks.js'

export { cardFacts, type A2aOptions, type A2aSkill } from './card.js'

export interface A2aEndpoint extends A2aContext {
  headers: Record<string, string>
  card: () => Promise<CardFacts>
  bearer: boolean
}

export const serveCard = async (ctx: A2aEndpoint, url: URL): Promise<Response> =>
  json(agentCard(await ctx.card(), url.origin, ctx.bearer), 200, { ...ctx.headers, 'cache-control': 'no-cache' })

const respond = (ctx: A2aEndpoint, id: RpcId, error: unknown): Response => {
  const { code, message, data, internal, status } = rpcError(error)
  if (internal) ctx.report(error)
  return json(envelope(id, { error: { code, message, ...(data ? { data } : {}) } }), status, ctx.headers)
}

/** Reads the body; a body that is not JSON is the parse error, an oversized one a JSON-RPC error with 413. */
const readBody = async (ctx: A2aEndpoint, request: Request): Promise<unknown> => {
  try {
    return await readJson(request, ctx.limits.bodyBytes)
  } catch (error) {
    if (error instanceof AgentError && error.code === 'INVALID_INPUT' && /not valid JSON|nests deeper|no body/.test(error.message)) throw new RpcError(RPC.PARSE_ERROR, error.message)
    throw error
  }
}

export const runA2a = async (ctx: A2aEndpoint, request: Request): Promise<Response> => {
  let id: RpcId = null
  try {
    const body = await readBody(ctx, request)
    id = idOf(body)
    const version = request.headers.get('a2a-version')?.trim() || '0.3'
    if (version !== A2A_VERSION) throw new RpcError(RPC.VERSION_NOT_SUPPORTED, `The requested A2A protocol version '${version.slice(0, 20)}' is not supported. Supported versions: ${A2A_VERSION} (send the header "A2A-Version: ${A2A_VERSION}").`)
    const rpc = parseRequest(body)
    switch (rpc.method) {
      case 'SendMessage': {
        const run = await sendMessage(ctx, rpc.params)
        return json(envelope(id, { result: { task: await untilStop(run, run.options.returnImmediately, run.options.historyLength) } }), 200, ctx.headers)
      }
      case 'SendStreamingMessage':
        return await stream(ctx, id, await sendMessage(ctx, rpc.params))
      case 'SubscribeToTask':
        return await stream(ctx, id, await subscribe(ctx, rpc.params))
      case 'GetTask':
        return json(envelope(id, { result: await getTask(ctx, rpc.params) }), 200, ctx.headers)
      case 'ListTasks':
        return json(envelope(id, { result: await listTasks(ctx, rpc.params) }), 200, ctx.headers)
      case 'CancelTask':
        return json(envelope(id, { result: await cancelTask(ctx, rpc.params) }), 200, ctx.headers)
      case 'CreateTaskPushNotificationConfig': case 'GetTaskPushNotificationConfig': case 'ListTaskPushNotificationConfigs': case 'DeleteTaskPushNotificationConfig':
        throw new RpcError(RPC.PUSH_NOT_SUPPORTED, 'This agent does not send push notifications (the card says pushNotifications: false); use SendStreamingMessage or SubscribeToTask.')
      case 'GetExtendedAgentCard':
        throw new RpcError(RPC.UNSUPPORTED_OPERATION, 'This agent has no extended card; GET /.well-known/agent-card.json is its card.')
      default:
        throw new RpcError(RPC.METHOD_NOT_FOUND, `Unknown method ${JSON.stringify(rpc.method.slice(0, 80))}; A2A 1.0 methods here: SendMessage, SendStreamingMessage, GetTask, ListTasks, CancelTask, SubscribeToTask.`)
    }
  } catch (error) {
    return respond(ctx, id, error)
  }
}

/**
 * A blocking SendMessage: the task once it stops (ends or parks), or at once with
 * `returnImmediately` (the rest drained in the background).
 */
const untilStop = async (run: TaskRun, immediately: boolean, historyLength: number | undefined) => {
  try {
    const first = await run.updates.next()
    if (immediately) {
      void drain(run)
      return (first.value as { task: unknown } | undefined)?.task ?? null
    }
    for (let next = first; !next.done; next = await run.updates.next()) void next
  } catch (error) {
    run.release()
    throw error
  }
  run.release()
  const record = run.view.record
  return record ? taskJson(run.session_id, record, run.view.waiting, { historyLength }) : null
}

const drain = async (run: TaskRun) => {
  try {
    for await (const _ of run.updates) void _
  } catch {
    // the task's failure is in its log; nobody waits for this stream
  } finally {
    run.release()
  }
}

/** The updates as SSE; the first is pulled before the response, so a refusal is a JSON error. A reader that leaves does not stop the task. */
const stream = async (ctx: A2aEndpoint, id: RpcId, run: TaskRun): Promise<Response> => {
  let first: IteratorResult<unknown>
  try {
    first = await run.updates.next()
  } catch (error) {
    run.release()
    throw error
  }
  const body = sseStream({
    keepAliveMs: ctx.limits.keepAliveMs,
    highWaterBytes: ctx.limits.sseHighWaterBytes,
    start(sink) {
      void (async () => {
        try {
          for (let next = first; !next.done; next = await run.updates.next()) {
            if (!sink.send(envelope(id, { result: next.value })) && run.detachable) break
          }
        } catch (error) {
          const { code, message, internal } = rpcError(error)
          if (internal) ctx.report(error)
          if (!sink.closed) sink.send(envelope(id, { error: { code, message } }))
        } finally {
          if (run.detachable) await run.updates.return(undefined)
          run.release()
          sink.close()
        }
      })()
    },
  })
  return new Response(body, { status: 200, headers: { ...SSE_HEADERS, ...ctx.headers } })
}
