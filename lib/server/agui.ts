// The AG-UI 1.0 endpoint: one POST per run, answered by an SSE stream of AG-UI events. threadId is
// the session (created on first use); the run's input is planned against the session's state
// (agui/fromAgUi.ts), sent through the hub with the run's front-end tools as external tools, and
// the reply's events are mapped (agui/toAgUi.ts).
// The connection closing is the Stop button: the reply is interrupted through the hub (the whole tree
// of sub-agents with it). A sub-agent's confirmations are the run's interrupts (agui/tree.ts). A run
// for a thread whose run still runs is a steer of that reply (steerRun).
import { AgentError } from '../core/errors.js'
import type { Hub, SessionHandle } from '../hub/types.js'
import type { CallerToolSpec } from '../agent/tools.js'
import { parseRunInput, planRun } from './agui/fromAgUi.js'
import { descendantsOf } from './agui/tree.js'
import { createAgUiRun, type AgUiRun } from './agui/toAgUi.js'
import type { AgUiEvent } from './agui/types.js'
import { publicError, readJson } from './http.js'
import { checkInputSize, type counter, type ServerLimits } from './limits.js'
import { SSE_HEADERS, sseStream, type SseSink } from './sse.js'
import { traceOptions } from './trace.js'
import type { ReplyOptions } from '../agent/replyOptions.js'
import type { AgentState } from '../../reducers/state.js'
import type { AgentInput } from '../agent/agentOptions.js'
import { isOutputEvent, type OutputEvent } from '../core/events.js'

export interface AgUiContext {
  hub: Hub
  limits: ServerLimits
  replies: ReturnType<typeof counter>
  headers: Record<string, string>
  /** The server's own log (errors in full). */
  report: (error: unknown) => void
}

export const runAgUi = async (ctx: AgUiContext, request: Request, session_id?: string): Promise<Response> => {
  const body = await readJson(request, ctx.limits.bodyBytes)
  const run = parseRunInput(body)
  checkInputSize(run.messages.at(-1) ?? {}, ctx.limits.messageBytes)
  const threadId = session_id ?? run.threadId
  const stop = new AbortController()
  const onClose = () => stop.abort()
  request.signal?.addEventListener('abort', onClose)
  const stream = sseStream({
    keepAliveMs: ctx.limits.keepAliveMs,
    highWaterBytes: ctx.limits.sseHighWaterBytes,
    start(sink) {
      void respond(ctx, sink, threadId, run, stop.signal, traceOptions(request)).finally(() => {
        request.signal?.removeEventListener('abort', onClose)
        sink.close()
      })
      return onClose
    },
  })
  return new Response(stream, { status: 200, headers: { ...SSE_HEADERS, ...ctx.headers } })
}

const respond = async (ctx: AgUiContext, sink: SseSink, threadId: string, run: ReturnType<typeof parseRunInput>, signal: AbortSignal, trace: ReplyOptions) => {
  const send = (events: AgUiEvent[]) => {
    for (const event of events) sink.send(event)
  }
  let mapped: AgUiRun | null = null
  let release: (() => void) | null = null
  try {
    const handle = await openThread(ctx.hub, threadId)
    const state = await handle.state()
    const plan = planRun(state, run, undefined, run.resume?.length ? await descendantsOf(ctx.hub, threadId, state) : undefined)
    mapped = createAgUiRun({ threadId, runId: run.runId, ...(plan.reply_id ? { reply_id: plan.reply_id, partialResults: partialResults(state) } : {}), ...(plan.kind === 'input' ? { externalCallIds: plan.externalCallIds } : {}) })
    if (plan.kind === 'none') return send([...mapped.start(), ...mapped.finish()])
    release = ctx.replies.acquire('process')
    if (plan.reply_id) send(mapped.start())
    if (plan.kind === 'steer') {
      await steerRun(handle, plan.input, plan.reply_id, signal, (event) => send(mapped!.map(event)))
      return send(mapped.finish())
    }
    for (const input of plan.before ?? []) await handle.dispatch(input)
    for await (const event of handle.replyStream(plan.input, { signal, externalTools: frontEndTools(run), descendants: true, ...trace })) send(mapped.map(event))
    send(mapped.finish())
  } catch (error) {
    const { code, message, internal } = publicError(error)
    if (internal) ctx.report(error)
    send(mapped ? mapped.fail(code, message) : [{ type: 'RUN_ERROR', message, code }])
  } finally {
    release?.()
  }
}

/**
 * A run for a thread whose run still runs steers the running reply (issue 30): the message is
 * recorded, and the run streams that reply's events from there to its end or pause (the Stop of the
 * connection does not stop the reply: the first run owns it).
 */
const steerRun = async (handle: SessionHandle, input: AgentInput, reply_id: string, signal: AbortSignal, send: (event: OutputEvent) => void): Promise<void> => {
  const { seq } = await handle.state()
  await handle.steer(input)
  const events = handle.follow({ fromSeq: seq, descendants: true })
  await new Promise<void>((resolve, reject) => {
    const done = () => {
      subscription.unsubscribe()
      signal.removeEventListener('abort', done)
      resolve()
    }
    const subscription = events.subscribe({
      next: (event) => {
        if (!isOutputEvent(event) || (event.metadata.session_id === undefined && event.reply_id !== reply_id)) return
        send(event)
        const own = event.metadata.session_id === undefined
        if (own && (event.type === 'REPLY_END' || event.type === 'REQUIRE_USER_CONFIRM' || event.type === 'REQUIRE_EXTERNAL_EXECUTION')) queueMicrotask(done)
      },
      error: reject,
      complete: resolve,
    })
    signal.addEventListener('abort', done)
  })
}

/** The text the paused reply's unfinished results streamed so far (a parked sub-agent's call): its result continues it. */
const partialResults = (state: AgentState): Record<string, string> =>
  Object.fromEntries((state.reply_msg?.content ?? []).flatMap((b) => (b.type === 'tool_result' && b.state === 'running' ? [[b.id, textOf(b.output)]] : [])))

const textOf = (output: string | readonly { type: string; text?: string }[]) => (typeof output === 'string' ? output : output.map((b) => b.text ?? '').join(''))

/** The run's front-end tools, offered to the model as external tools of this run. */
const frontEndTools = (run: ReturnType<typeof parseRunInput>): CallerToolSpec[] =>
  (run.tools ?? []).map(({ name, description, parameters }) => ({
    name, description, ...(typeof parameters === 'object' && parameters !== null && !Array.isArray(parameters) ? { parameters: parameters as Record<string, unknown> } : {}),
  }))

/** The session of a thread, created on its first run. */
const openThread = async (hub: Hub, session_id: string): Promise<SessionHandle> => {
  const handle = hub.session(session_id)
  try {
    await handle.state()
  } catch (error) {
    if (!(error instanceof AgentError) || error.code !== 'NOT_FOUND') throw error
    await hub.create({ session_id }).catch((e: unknown) => {
      if (!(e instanceof AgentError) || e.code !== 'SESSION_EXISTS') throw e
    })
  }
  return handle
}
