// The native API: sessions, replies and events as JSON and SSE, each route a thin call on the hub.
// An SSE `id` is always the event's own seq and names only a durable event: /events follows the
// store (what it holds is durable), and a reply stream puts `id:` only on the events a log that
// commits after append has committed when they arrive (REPLY_END and pauses; see lib/core/commitGate.ts),
// so a client resuming from its Last-Event-ID never skips an event. A client that leaves a reply
// does not stop it (it is drained in the background) and comes back on /events from the last id.
// Events streams send history then live events from one follow(): no gap, no duplicate.
import { SYNC_POINTS } from '../core/commitGate.js'
import { parentOf } from '../hub/nested.js'
import { AgentError, type AgentErrorCode } from '../core/errors.js'
import { checkKnownKeys } from '../core/strictOptions.js'
import type { AgentEvent, OutputEvent } from '../core/events.js'
import type { Hub, SessionHandle } from '../hub/types.js'
import type { AgentInput } from '../agent/agentOptions.js'
import type { CallRef } from '../subagents/tree.js'
import type { Answer } from '../hub/answers.js'
import { json, publicDamage, publicError, readJson } from './http.js'
import { checkInputSize, type counter, type ServerLimits } from './limits.js'
import { SSE_HEADERS, sseStream } from './sse.js'
import { traceOptions } from './trace.js'

export interface NativeContext {
  hub: Hub
  limits: ServerLimits
  replies: ReturnType<typeof counter>
  followers: ReturnType<typeof counter>
  streams: ReturnType<typeof counter>
  headers: Record<string, string>
  /** The server's own log (errors in full). */
  report: (error: unknown) => void
}

type Body = Record<string, unknown>
/** A JSON object, with only the `known` fields when given (a misspelt field is refused, not ignored). */
const object = (value: unknown, what: string, known?: readonly string[]): Body => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new AgentError('INVALID_INPUT', `${what} must be a JSON object.`)
  if (known) checkKnownKeys(what, value, known, 'INVALID_INPUT')
  return value as Body
}

/** The fields each body of the native API knows; any other is refused (INVALID_INPUT, 400). */
export const BODY_FIELDS = {
  createSession: ['session_id', 'metadata'],
  reply: ['input', 'descendants'],
  /** POST /input's shorthands (otherwise the body is the input itself, which the agent admits). */
  input: ['approve', 'deny', 'submit', 'input', 'whilePaused', 'steer', 'queue', 'unqueue'],
  interrupt: ['when', 'keepQueue'],
  approve: ['tool_call_id', 'session_id', 'input'],
  deny: ['tool_call_id', 'session_id', 'reason'],
  submit: ['tool_call_id', 'session_id', 'result'],
} as const satisfies Record<string, readonly string[]>
const SHORTHANDS: readonly string[] = BODY_FIELDS.input

/**
 * The answer a body gives (`{ approve: call, input? }`, `{ deny: call, reason? }`, `{ submit: { ...call, result } }`,
 * the call its id or `{ tool_call_id, session_id? }`), as the hub takes it; null for any other body.
 */
const answerOf = (body: Record<string, unknown>): Answer | null => {
  if (body.approve !== undefined) {
    if (typeof body.approve === 'object') object(body.approve, 'approve', BODY_FIELDS.approve)
    const edited = (body.approve as { input?: unknown }).input
    return { approve: callRef(body.approve, 'approve'), ...(edited !== undefined && { input: object(edited, 'approve.input') }) }
  }
  if (body.deny !== undefined) {
    if (typeof body.deny === 'object') object(body.deny, 'deny', BODY_FIELDS.deny)
    const reason = (body.deny as { reason?: unknown }).reason
    return { deny: callRef(body.deny, 'deny'), ...(typeof reason === 'string' && { reason }) }
  }
  if (body.submit === undefined) return null
  const submit = object(body.submit, 'submit', BODY_FIELDS.submit)
  if (submit.result === undefined) throw new AgentError('INVALID_INPUT', 'submit needs the tool\'s result: { "submit": { "tool_call_id": "<id>", "result": <the output> } }.')
  return { submit: callRef(submit, 'submit'), result: submit.result }
}

/** The call an answer names: its id, or `{ tool_call_id, session_id? }` (the session it waits in, as /waiting lists it). */
const callRef = (value: unknown, field: string): CallRef => {
  const id = typeof value === 'string' ? value : (value as { tool_call_id?: unknown } | null)?.tool_call_id
  if (typeof id !== 'string' || !id) throw new AgentError('INVALID_INPUT', `${field} needs a tool call id: "${field}": "<id>" or { "tool_call_id": "<id>", "session_id"?: "<the session it waits in>" }.`)
  const where = typeof value === 'object' ? (value as { session_id?: unknown }).session_id : undefined
  if (where !== undefined && typeof where !== 'string') throw new AgentError('INVALID_INPUT', `${field}.session_id must be the id of the session the call waits in (as GET /sessions/:id/waiting lists it).`)
  return where === undefined ? id : { id, session_id: where }
}

export const createSession = async (ctx: NativeContext, request: Request): Promise<Response> => {
  const body = object(await readJson(request, ctx.limits.bodyBytes, {}), 'The body of POST /sessions', BODY_FIELDS.createSession)
  if (body.session_id !== undefined && typeof body.session_id !== 'string') throw new AgentError('INVALID_INPUT', 'session_id must be a string (or left out: the server makes one).')
  if (body.metadata !== undefined && Object.hasOwn(object(body.metadata, 'metadata'), 'parent'))
    throw new AgentError('INVALID_INPUT', 'metadata.parent is set by the hub when a sub-agent call creates a session; a client cannot set it.')
  const info = await ctx.hub.create({
    ...(typeof body.session_id === 'string' ? { session_id: body.session_id } : {}),
    ...(body.metadata !== undefined ? { metadata: object(body.metadata, 'metadata') } : {}),
  })
  return json({ session_id: info.session_id, info }, 201, ctx.headers)
}

export const listSessions = async (ctx: NativeContext, url: URL): Promise<Response> => {
  const limit = url.searchParams.get('limit')
  const after = url.searchParams.get('after')
  if (limit !== null && !/^[1-9]\d{0,3}$/.test(limit)) throw new AgentError('INVALID_INPUT', `limit must be a whole number from 1 to 9999; received ${JSON.stringify(limit)}.`)
  const page = await ctx.hub.list({ ...(limit ? { limit: Number(limit) } : {}), ...(after ? { after } : {}) })
  // A damaged session's message may name the store's files or a lock's holder: the server's log hears it in full.
  // A sub-agent's session names its parent, so a client can nest it under its root.
  const items = page.items.map((item) => {
    const parent = parentOf(item)
    const listed = parent ? { ...item, parent } : item
    if (!item.damage) return listed
    const { damage, internal } = publicDamage(item.damage)
    if (internal) ctx.report(new AgentError(item.damage.code as AgentErrorCode, item.damage.message, { session_id: item.session_id }))
    return { ...listed, damage }
  })
  return json({ ...page, items }, 200, ctx.headers)
}

export const getState = async (ctx: NativeContext, handle: SessionHandle): Promise<Response> => json(await handle.state(), 200, ctx.headers)

/** The sub-agent sessions of a session, each with its own nested (`{ items: SessionTree[] }`, from the links in the logs). */
export const getChildren = async (ctx: NativeContext, handle: SessionHandle): Promise<Response> => json({ items: (await handle.tree()).children }, 200, ctx.headers)

/** `?descendants=1` (or `true`): the sub-agents' events too, tagged with their `metadata.session_id`. */
const descendantsOf = (url: URL, body?: Record<string, unknown>): boolean => {
  const given = url.searchParams.get('descendants')
  return given === '1' || given === 'true' || body?.descendants === true
}

/** A sub-agent's event (tagged with its session) has no `id:`: SSE ids are the followed session's own seqs. */
const ownSeq = (event: AgentEvent, seq: number | undefined): number | undefined => (typeof event.metadata.session_id === 'string' ? undefined : seq)

export const deleteSession = async (ctx: NativeContext, session_id: string): Promise<Response> => {
  await ctx.hub.delete(session_id)
  return new Response(null, { status: 204, headers: ctx.headers })
}

/** The Stop route: now, or `{ "when": "step" }` (after what runs now); `{ "keepQueue": true }` keeps the queue. Answers with the messages handed back. */
export const interrupt = async (ctx: NativeContext, handle: SessionHandle, request: Request): Promise<Response> => {
  const body = object(await readJson(request, ctx.limits.bodyBytes, {}), 'The body of POST /sessions/:id/interrupt', BODY_FIELDS.interrupt)
  const { queue } = await handle.interrupt({ ...(body.when !== undefined && { when: body.when as 'step' }), ...(body.keepQueue !== undefined && { keepQueue: body.keepQueue as boolean }) })
  const { status, reply_id, seq } = await handle.state()
  return json({ status, reply_id, seq, queue }, 200, ctx.headers)
}

/** `{ "steer": input }`, `{ "queue": input }`, `{ "unqueue": id }`: what they resolve to, and the seq that shows it. */
const talk = async (ctx: NativeContext, handle: SessionHandle, body: Body): Promise<Response> => {
  const result = body.steer !== undefined ? await handle.steer(inputOf(body.steer) as AgentInput | string)
    : body.queue !== undefined ? await handle.queue(inputOf(body.queue) as AgentInput | string)
    : await handle.unqueue(unqueueId(body.unqueue)).then(() => ({ id: body.unqueue as string }))
  const { seq } = await handle.state()
  return json({ ...result, seq }, 200, ctx.headers)
}

const unqueueId = (value: unknown): string => {
  if (typeof value !== 'string' || !value) throw new AgentError('INVALID_INPUT', 'unqueue needs the id queue resolved to: { "unqueue": "<id>" }.')
  return value
}

/** Applies an input event or an approve / deny / submit shorthand; answers with the events it caused. */
export const postInput = async (ctx: NativeContext, handle: SessionHandle, request: Request): Promise<Response> => {
  const body = object(await readJson(request, ctx.limits.bodyBytes), 'The body of POST /sessions/:id/input')
  checkInputSize(body, ctx.limits.messageBytes)
  // A body that is neither a shorthand nor an input itself (a message has a role, an event a type) is refused by its fields.
  if (Object.keys(body).some((key) => SHORTHANDS.includes(key)) || !('type' in body || 'role' in body)) checkKnownKeys('The body of POST /sessions/:id/input', body, SHORTHANDS, 'INVALID_INPUT')
  if (body.steer !== undefined || body.queue !== undefined || body.unqueue !== undefined) return talk(ctx, handle, body)
  const answer = answerOf(body)
  // `{ input, whilePaused }`: a message over a paused reply interrupts it or is queued (ReplyOptions.whilePaused).
  const events = answer ? await handle.dispatch(answer) : await handle.dispatch(inputOf(body.input ?? body), body.whilePaused === undefined ? {} : { whilePaused: body.whilePaused as 'interrupt' })
  return json({ events }, 200, ctx.headers)
}

/** Starts or resumes a reply and streams its output events; refusals answer before any byte of SSE. */
export const postReply = async (ctx: NativeContext, handle: SessionHandle, request: Request, url: URL): Promise<Response> => {
  const body = object(await readJson(request, ctx.limits.bodyBytes), 'The body of POST /sessions/:id/replies', BODY_FIELDS.reply)
  if (body.input === undefined) throw new AgentError('INVALID_INPUT', 'POST /sessions/:id/replies needs { "input": <a message, a string or an input event> }.')
  checkInputSize(body.input, ctx.limits.messageBytes)
  const release = ctx.replies.acquire('process')
  let iterator: AsyncIterator<OutputEvent>
  let first: IteratorResult<OutputEvent>
  try {
    const given = typeof body.input === 'object' && body.input !== null ? answerOf(body.input as Record<string, unknown>) : null
    iterator = handle.replyStream(given ?? inputOf(body.input), { ...traceOptions(request), descendants: descendantsOf(url, body) })[Symbol.asyncIterator]()
    first = await iterator.next()
  } catch (error) {
    release()
    throw error
  }
  const body$ = sseStream({
    keepAliveMs: ctx.limits.keepAliveMs,
    highWaterBytes: ctx.limits.sseHighWaterBytes,
    start(sink) {
      void (async () => {
        try {
          for (let next = first; !next.done; next = await iterator.next()) {
            sink.send(next.value, ownSeq(next.value, durableSeq(next.value)))
            if (CONTROL.has(next.value.type)) sink.flush()
          }
        } catch (error) {
          sink.fail(errorBody(ctx, error))
        } finally {
          release()
          sink.close()
        }
      })()
    },
  })
  return new Response(body$, { status: 200, headers: { ...SSE_HEADERS, ...ctx.headers } })
}

/**
 * The session's events after `from_seq` (or Last-Event-ID), then live ones, each with `id:` its own
 * seq. A position past the session's last event is refused (it names no event this log holds).
 */
export const followEvents = async (ctx: NativeContext, handle: SessionHandle, request: Request, url: URL): Promise<Response> => {
  const given = url.searchParams.get('from_seq') ?? request.headers.get('last-event-id') ?? '0'
  if (!/^\d{1,15}$/.test(given)) throw new AgentError('INVALID_INPUT', `from_seq must be a whole number of 0 or more; received ${JSON.stringify(given)}.`)
  const fromSeq = Number(given)
  const { seq: last } = await handle.state() // NOT_FOUND as a 404 before the stream starts
  if (fromSeq > last)
    throw new AgentError('INVALID_INPUT', `from_seq ${fromSeq} is past the session's last event (${last}); resume from a seq you received, or 0 for the whole log.`)
  const release = ctx.followers.acquire(handle.session_id)
  let releaseStream: () => void
  try {
    releaseStream = ctx.streams.acquire('process')
  } catch (error) {
    release()
    throw error
  }
  const body$ = sseStream({
    keepAliveMs: ctx.limits.keepAliveMs,
    highWaterBytes: ctx.limits.sseHighWaterBytes,
    start(sink) {
      const subscription = handle.follow({ fromSeq, descendants: descendantsOf(url) }).subscribe({
        next: (event) => {
          sink.send(event, ownSeq(event, seqOf(event)))
          if (CONTROL.has(event.type)) sink.flush()
        },
        error: (error) => sink.fail(errorBody(ctx, error)),
        complete: () => sink.close(),
      })
      return () => {
        subscription.unsubscribe()
        release()
        releaseStream()
      }
    },
  })
  return new Response(body$, { status: 200, headers: { ...SSE_HEADERS, ...ctx.headers } })
}

/** Events a client acts on (a reply's end or pause, a Stop): written at once, not at the end of the turn's bulk. */
const CONTROL: ReadonlySet<string> = new Set(['REPLY_END', 'REQUIRE_USER_CONFIRM', 'REQUIRE_EXTERNAL_EXECUTION', 'INTERRUPT_REQUESTED', 'USER_INTERRUPT'])

const seqOf = (event: AgentEvent): number | undefined => {
  const seq = event.metadata.seq
  return typeof seq === 'number' ? seq : undefined
}

/** The seq of an event a reply stream may name as durable: a sync point (committed before it is delivered). */
const durableSeq = (event: OutputEvent): number | undefined => (SYNC_POINTS.has(event.type) ? seqOf(event) : undefined)

/** An error as the `event: error` of a stream: its code and message without internals (the server's log hears it in full). */
const errorBody = (ctx: NativeContext, error: unknown) => {
  const { code, message, internal } = publicError(error)
  if (internal) ctx.report(error)
  return { code, message }
}

/** A string, a message or an input event, passed to the hub as is (it admits or refuses it). */
const inputOf = (input: unknown): Parameters<SessionHandle['dispatch']>[0] => {
  if (typeof input === 'string') return input
  return object(input, 'input') as unknown as Parameters<SessionHandle['dispatch']>[0]
}
