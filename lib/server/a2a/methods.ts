// The A2A 1.0 methods over the hub. SendMessage / SendStreamingMessage: a message without `taskId`
// starts a reply in the context's session (created when the message has no contextId, or names a
// valid session id not stored yet); one with the `taskId` of a parked task answers it
// (parts.ts answersOf) and the task goes on. GetTask / ListTasks read the log; CancelTask interrupts
// the reply and its tree; SubscribeToTask follows a working task from the log. A client that leaves a
// stream does not stop the task (it is drained); CancelTask does.
import { UserMsg } from '../../core/factories.js'
import { AgentError } from '../../core/errors.js'
import type { AgentEvent } from '../../core/events.js'
import type { Hub, SessionHandle } from '../../hub/types.js'
import { checkSessionId } from '../../stores/sessions.js'
import { checkInputSize, type counter, type ServerLimits } from '../limits.js'
import { answersOf, blocksOf, parseMessage, type Answer } from './parts.js'
import { RPC, RpcError, stringParam } from './rpc.js'
import { parseTaskId, sessionTasks, taskJson, TERMINAL, type TaskRecord } from './tasks.js'
import { iterate, taskUpdates, type StreamResponse } from './updates.js'

export interface A2aContext {
  hub: Hub
  limits: ServerLimits
  replies: ReturnType<typeof counter>
  report: (error: unknown) => void
}

/** A task's updates and how they end: `view` holds the task as it stands after the last one pulled. */
export interface TaskRun {
  updates: AsyncGenerator<StreamResponse>
  view: { record: TaskRecord | null; waiting: Awaited<ReturnType<SessionHandle['waiting']>> }
  session_id: string
  release: () => void
  /** The updates follow the log (an answer, a subscription): a reader that leaves may stop reading them; a new reply's own stream is drained instead. */
  detachable: boolean
}

const optionalNumber = (value: unknown, name: string): number | undefined => {
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) throw new RpcError(RPC.INVALID_PARAMS, `"${name}" must be a whole number of 0 or more.`)
  return value
}

const configurationOf = (params: Record<string, unknown>) => {
  const c = params.configuration ?? {}
  if (typeof c !== 'object' || c === null || Array.isArray(c)) throw new RpcError(RPC.INVALID_PARAMS, '"configuration" must be an object.')
  const { returnImmediately, historyLength } = c as Record<string, unknown>
  if (returnImmediately !== undefined && typeof returnImmediately !== 'boolean') throw new RpcError(RPC.INVALID_PARAMS, '"configuration.returnImmediately" must be a boolean.')
  return { returnImmediately: returnImmediately === true, historyLength: optionalNumber(historyLength, 'configuration.historyLength') }
}

/** The session a context names (created on first use), or a new one for a message without context. */
const contextSession = async (hub: Hub, contextId: string | undefined): Promise<SessionHandle> => {
  if (contextId === undefined) return hub.session((await hub.create()).session_id)
  try {
    checkSessionId(contextId)
  } catch {
    throw new RpcError(RPC.INVALID_PARAMS, `contextId ${JSON.stringify(contextId.slice(0, 200))} is not a context of this server: leave it out to start one, or send the contextId a task returned (1 to 128 letters, digits, "_", "." and "-").`)
  }
  const handle = hub.session(contextId)
  try {
    await handle.state()
  } catch (error) {
    if (!(error instanceof AgentError) || error.code !== 'NOT_FOUND') throw error
    await hub.create({ session_id: contextId }).catch((e: unknown) => {
      if (!(e instanceof AgentError) || e.code !== 'SESSION_EXISTS') throw e
    })
  }
  return handle
}

/** The task a method names (`params.id`), read from its session's log. */
const findTask = async (hub: Hub, id: string) => {
  const { session_id, reply_id } = parseTaskId(id)
  const handle = hub.session(session_id)
  const read = await sessionTasks(handle).catch((error: unknown) => {
    if (error instanceof AgentError && error.code === 'NOT_FOUND') throw new RpcError(RPC.TASK_NOT_FOUND, `No task ${JSON.stringify(id)}: its context is not stored here.`)
    throw error
  })
  const record = read.tasks.find((t) => t.reply_id === reply_id)
  if (!record) throw new RpcError(RPC.TASK_NOT_FOUND, `No task ${JSON.stringify(id)} in context ${session_id}.`)
  return { handle, record, state: read.state }
}

/** Starts or answers a task; the updates are pulled by the caller (a stream, or to the end for a blocking call). */
export const sendMessage = async (ctx: A2aContext, params: Record<string, unknown>): Promise<TaskRun & { options: ReturnType<typeof configurationOf> }> => {
  const message = parseMessage(params.message)
  const options = configurationOf(params)
  checkInputSize(message, ctx.limits.messageBytes)
  if (message.taskId !== undefined) return { ...(await answer(ctx, message.taskId, message.contextId, message.parts)), options }
  let n = 0
  const stamp = () => ({ id: `${message.messageId.slice(0, 64)}-${n++}`, created_at: new Date().toISOString() })
  const msg = { ...UserMsg({ content: blocksOf(message.parts, stamp) }), metadata: { a2a: { messageId: message.messageId } } }
  const handle = await contextSession(ctx.hub, message.contextId) // after the parts are checked: a refused message creates nothing
  const release = ctx.replies.acquire('process')
  const view: TaskRun['view'] = { record: null, waiting: [] }
  const events = handle.replyStream(msg) as AsyncIterable<AgentEvent>
  return { updates: taskUpdates(handle, withUserMessage(msg, events), { user: msg }, view), view, session_id: handle.session_id, release, options, detachable: false }
}

/** The reply's own stream yields output events only: its user message goes first, as the log has it. */
async function* withUserMessage(msg: ReturnType<typeof UserMsg>, events: AsyncIterable<AgentEvent>): AsyncGenerator<AgentEvent> {
  yield { id: msg.id, created_at: msg.created_at, metadata: {}, type: 'USER_MESSAGE', msg }
  yield* events
}

/** Answers the calls a parked task waits for, then follows the task from the log. */
const answer = async (ctx: A2aContext, taskId: string, contextId: string | undefined, parts: Record<string, unknown>[]): Promise<TaskRun> => {
  const { handle, record, state } = await findTask(ctx.hub, taskId)
  if (contextId !== undefined && contextId !== handle.session_id) throw new RpcError(RPC.INVALID_PARAMS, `Task ${taskId} is in context ${handle.session_id}, not ${contextId}.`)
  if (record.state !== 'TASK_STATE_INPUT_REQUIRED')
    throw new RpcError(RPC.INVALID_PARAMS, `Task ${taskId} is ${record.state}, not waiting for input: send a message without "taskId" to start a new task in the context${TERMINAL.has(record.state) ? '' : ', or wait for it to end'}.`)
  const answers = answersOf(parts, await handle.waiting())
  const release = ctx.replies.acquire('process')
  try {
    const view: TaskRun['view'] = { record, waiting: [] }
    const events = iterate(handle.follow({ fromSeq: state.seq, descendants: true }))
    for (const a of answers) await give(handle, a)
    return { updates: taskUpdates(handle, events, { record }, view), view, session_id: handle.session_id, release, detachable: true }
  } catch (error) {
    release()
    throw error
  }
}

const give = (handle: SessionHandle, a: Answer) =>
  'result' in a ? handle.submitResult(a.tool_call_id, a.result)
    : a.decision === 'approve' ? handle.approve(a.tool_call_id, a.input ? { input: a.input } : {})
      : handle.deny(a.tool_call_id, a.reason)

export const subscribe = async (ctx: A2aContext, params: Record<string, unknown>): Promise<TaskRun> => {
  const id = stringParam(params, 'id', 'SubscribeToTask')
  const { handle, record, state } = await findTask(ctx.hub, id)
  if (TERMINAL.has(record.state)) throw new RpcError(RPC.UNSUPPORTED_OPERATION, `Task ${id} has ended (${record.state}); GetTask reads it.`)
  const view: TaskRun['view'] = { record, waiting: [] }
  const release = ctx.replies.acquire('process')
  if (record.state === 'TASK_STATE_INPUT_REQUIRED') {
    const waiting = await handle.waiting()
    view.waiting = waiting
    const updates = (async function* () {
      yield { task: taskJson(handle.session_id, record, waiting) }
    })()
    return { updates, view, session_id: handle.session_id, release, detachable: true }
  }
  const events = iterate(handle.follow({ fromSeq: state.seq, descendants: true }))
  return { updates: taskUpdates(handle, events, { record }, view), view, session_id: handle.session_id, release, detachable: true }
}

export const getTask = async (ctx: A2aContext, params: Record<string, unknown>) => {
  const { handle, record } = await findTask(ctx.hub, stringParam(params, 'id', 'GetTask'))
  const waiting = record.state === 'TASK_STATE_INPUT_REQUIRED' ? await handle.waiting() : []
  return taskJson(handle.session_id, record, waiting, { historyLength: optionalNumber(params.historyLength, 'historyLength') })
}

export const cancelTask = async (ctx: A2aContext, params: Record<string, unknown>) => {
  const id = stringParam(params, 'id', 'CancelTask')
  const { handle, record } = await findTask(ctx.hub, id)
  if (TERMINAL.has(record.state)) throw new RpcError(RPC.TASK_NOT_CANCELABLE, `Task ${id} has already ended (${record.state}).`)
  await handle.interrupt()
  const after = await findTask(ctx.hub, id)
  return taskJson(handle.session_id, after.record, [])
}

/** The states by their protobuf numbers (ProtoJSON allows either spelling). */
const BY_NUMBER: Record<number, string> = { 1: 'TASK_STATE_SUBMITTED', 2: 'TASK_STATE_WORKING', 3: 'TASK_STATE_COMPLETED', 4: 'TASK_STATE_FAILED', 5: 'TASK_STATE_CANCELED', 6: 'TASK_STATE_INPUT_REQUIRED' }
const STATES = new Set(['TASK_STATE_WORKING', 'TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_COMPLETED', 'TASK_STATE_CANCELED', 'TASK_STATE_FAILED'])

/**
 * The tasks of one context (`contextId`: newest first, `pageToken` an offset), or of the newest
 * contexts (without it: one page of the hub's sessions, `pageToken` the hub's cursor).
 */
export const listTasks = async (ctx: A2aContext, params: Record<string, unknown>) => {
  const pageSize = optionalNumber(params.pageSize, 'pageSize') ?? 50
  if (pageSize < 1 || pageSize > 100) throw new RpcError(RPC.INVALID_PARAMS, '"pageSize" must be from 1 to 100.')
  const status = params.status === undefined || params.status === 'TASK_STATE_UNSPECIFIED' || params.status === 0 ? undefined : typeof params.status === 'number' ? BY_NUMBER[params.status] : params.status
  if (status !== undefined && !STATES.has(status as string)) throw new RpcError(RPC.INVALID_PARAMS, `"status" must be one of ${[...STATES].join(', ')}.`)
  const pageToken = params.pageToken ?? ''
  if (typeof pageToken !== 'string') throw new RpcError(RPC.INVALID_PARAMS, '"pageToken" must be a string.')
  const options = { historyLength: optionalNumber(params.historyLength, 'historyLength'), artifacts: params.includeArtifacts === true }
  const keep = (t: TaskRecord) => status === undefined || t.state === status
  if (params.contextId !== undefined) {
    if (typeof params.contextId !== 'string') throw new RpcError(RPC.INVALID_PARAMS, '"contextId" must be a string.')
    const handle = ctx.hub.session(checkedContext(params.contextId))
    const read = await sessionTasks(handle).catch((error: unknown) => {
      if (error instanceof AgentError && error.code === 'NOT_FOUND') return { tasks: [] as TaskRecord[] }
      throw error
    })
    const tasks = read.tasks.filter(keep).reverse()
    const from = pageToken === '' ? 0 : Number(pageToken)
    if (!Number.isInteger(from) || from < 0) throw new RpcError(RPC.INVALID_PARAMS, '"pageToken" must be one this server returned.')
    const page = tasks.slice(from, from + pageSize)
    const next = from + pageSize < tasks.length ? String(from + pageSize) : ''
    return { tasks: page.map((t) => taskJson(handle.session_id, t, [], options)), nextPageToken: next, pageSize, totalSize: tasks.length }
  }
  const sessions = await ctx.hub.list({ limit: pageSize, ...(pageToken ? { after: pageToken } : {}) }).catch((error: unknown) => {
    if (error instanceof AgentError && error.code === 'INVALID_INPUT') throw new RpcError(RPC.INVALID_PARAMS, '"pageToken" must be one this server returned.')
    throw error
  })
  const all = await Promise.all(sessions.items.filter((s) => s.status !== 'damaged').map(async (s) => {
    const handle = ctx.hub.session(s.session_id)
    return (await sessionTasks(handle)).tasks.filter(keep).reverse().map((t) => taskJson(s.session_id, t, [], options))
  }))
  const tasks = all.flat()
  return { tasks, nextPageToken: sessions.next ?? '', pageSize, totalSize: tasks.length }
}

const checkedContext = (contextId: string): string => {
  try {
    return checkSessionId(contextId)
  } catch {
    throw new RpcError(RPC.INVALID_PARAMS, `contextId ${JSON.stringify(contextId.slice(0, 200))} is not a context of this server.`)
  }
}
