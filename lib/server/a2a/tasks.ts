// A2A tasks read from a session's log: a task is one reply, its id `<session_id>:<reply_id>` (so
// any process of a hub, after a restart too, finds it from the store alone), its status the reply's
// (running: WORKING, parked: INPUT_REQUIRED, ended: COMPLETED / CANCELED / FAILED), its history the
// user message that started it and the reply's final text, its one artifact the reply's text.
import { firstValueFrom, take, toArray } from 'rxjs'
import type { AgentEvent, ReplyEndEvent } from '../../core/events.js'
import type { Msg } from '../../core/messages.js'
import type { SessionHandle } from '../../hub/types.js'
import type { WaitingCall } from '../../agent/text.js'
import type { AgentState } from '../../../reducers/state.js'
import { checkSessionId } from '../../stores/sessions.js'
import { waitingParts, type A2aPart } from './parts.js'
import { RPC, RpcError } from './rpc.js'

export type TaskState = 'TASK_STATE_WORKING' | 'TASK_STATE_INPUT_REQUIRED' | 'TASK_STATE_COMPLETED' | 'TASK_STATE_CANCELED' | 'TASK_STATE_FAILED'

export const TERMINAL: ReadonlySet<TaskState> = new Set(['TASK_STATE_COMPLETED', 'TASK_STATE_CANCELED', 'TASK_STATE_FAILED'])

/** One reply as a task, folded from the log. */
export interface TaskRecord {
  reply_id: string
  user: Msg | null
  /** The reply's text, as streamed (the artifact). */
  text: string
  state: TaskState
  end: ReplyEndEvent | null
  updated_at: string
}

export const taskIdOf = (session_id: string, reply_id: string): string => `${session_id}:${reply_id}`

/** The session and reply a task id names; a task id of another shape is an unknown task. */
export const parseTaskId = (id: string): { session_id: string; reply_id: string } => {
  const at = id.indexOf(':')
  const session_id = id.slice(0, at)
  const reply_id = id.slice(at + 1)
  try {
    if (at <= 0 || !reply_id) throw new Error('no reply')
    checkSessionId(session_id)
  } catch {
    throw new RpcError(RPC.TASK_NOT_FOUND, `No task ${JSON.stringify(id.slice(0, 200))}: this server's task ids are "<contextId>:<reply id>" as SendMessage returned them.`)
  }
  return { session_id, reply_id }
}

export const stateOfEnd = (end: ReplyEndEvent): TaskState =>
  end.finished_reason === 'completed' ? 'TASK_STATE_COMPLETED' : end.finished_reason === 'interrupted' ? 'TASK_STATE_CANCELED' : 'TASK_STATE_FAILED'

/** The session's events up to seq `upTo` (its whole log when `upTo` is its last seq). */
export const readEvents = (handle: SessionHandle, upTo: number): Promise<AgentEvent[]> =>
  upTo === 0 ? Promise.resolve([]) : firstValueFrom(handle.follow({ fromSeq: 0 }).pipe(take(upTo), toArray()))

/** Folds one event into the tasks (by reply id, in order); returns the task it touched, if any. */
export const foldTask = (tasks: Map<string, TaskRecord>, event: AgentEvent, pending: { user: Msg | null }): TaskRecord | undefined => {
  if (event.type === 'USER_MESSAGE') {
    pending.user = event.msg
    return undefined
  }
  if (event.type === 'REPLY_START') {
    const record: TaskRecord = { reply_id: event.reply_id, user: pending.user, text: '', state: 'TASK_STATE_WORKING', end: null, updated_at: event.created_at }
    pending.user = null
    tasks.set(event.reply_id, record)
    return record
  }
  const reply_id = 'reply_id' in event ? event.reply_id : undefined
  const record = reply_id === undefined ? undefined : tasks.get(reply_id)
  if (!record || record.end) return undefined
  record.updated_at = event.created_at
  if (event.type === 'TEXT_BLOCK_DELTA') record.text += event.delta
  else if (event.type === 'REQUIRE_USER_CONFIRM' || event.type === 'REQUIRE_EXTERNAL_EXECUTION') record.state = 'TASK_STATE_INPUT_REQUIRED'
  else if (event.type === 'USER_CONFIRM_RESULT' || event.type === 'EXTERNAL_EXECUTION_RESULT') record.state = 'TASK_STATE_WORKING'
  else if (event.type === 'REPLY_END') {
    record.end = event
    record.state = stateOfEnd(event)
  }
  return record
}

/** Every task of a session, oldest first, with the current reply's status from the state (the reducers decide when it is parked). */
export const tasksOf = (events: readonly AgentEvent[], state: AgentState): TaskRecord[] => {
  const tasks = new Map<string, TaskRecord>()
  const pending = { user: null as Msg | null }
  for (const event of events) foldTask(tasks, event, pending)
  const current = state.reply_id ? tasks.get(state.reply_id) : undefined
  if (current && !current.end) current.state = state.status === 'paused' ? 'TASK_STATE_INPUT_REQUIRED' : 'TASK_STATE_WORKING'
  return [...tasks.values()]
}

/** A session's log and state, read once. */
export const sessionTasks = async (handle: SessionHandle): Promise<{ state: AgentState; tasks: TaskRecord[] }> => {
  const state = await handle.state()
  return { state, tasks: tasksOf(await readEvents(handle, state.seq), state) }
}

export const userParts = (msg: Msg): A2aPart[] =>
  msg.content.flatMap((b): A2aPart[] => (b.type === 'text' ? [{ text: b.text }] : b.type === 'data' && b.source.type === 'base64' ? [{ data: { media_type: b.source.media_type }, mediaType: b.source.media_type }] : []))

export const agentMessage = (session_id: string, reply_id: string, parts: A2aPart[], suffix: string) =>
  ({ messageId: `${reply_id}-${suffix}`, contextId: session_id, taskId: taskIdOf(session_id, reply_id), role: 'ROLE_AGENT' as const, parts })

/** The status of a task: its state, and a message (the final text, or what a parked reply waits for). */
export const statusOf = (session_id: string, record: TaskRecord, waiting: readonly WaitingCall[]) => {
  const timestamp = record.updated_at
  if (record.state === 'TASK_STATE_INPUT_REQUIRED') return { state: record.state, message: agentMessage(session_id, record.reply_id, waitingParts(waiting), 'waiting'), timestamp }
  if (!record.end) return { state: record.state, timestamp }
  const text = record.end.finished_reason === 'error' ? `${record.text}${record.text ? '\n' : ''}Error: ${record.end.error?.message ?? 'the reply failed'}` : record.text
  return { state: record.state, message: agentMessage(session_id, record.reply_id, [{ text }], 'final'), timestamp }
}

/** The A2A Task of a record. */
export const taskJson = (session_id: string, record: TaskRecord, waiting: readonly WaitingCall[], options: { historyLength?: number; artifacts?: boolean } = {}) => {
  const status = statusOf(session_id, record, waiting)
  const history = [
    ...(record.user ? [{ messageId: record.user.id, contextId: session_id, taskId: taskIdOf(session_id, record.reply_id), role: 'ROLE_USER' as const, parts: userParts(record.user) }] : []),
    ...(record.end && status.message ? [status.message] : []),
  ]
  const kept = options.historyLength === undefined ? history : options.historyLength <= 0 ? [] : history.slice(-options.historyLength)
  return {
    id: taskIdOf(session_id, record.reply_id),
    contextId: session_id,
    status,
    ...(options.artifacts === false || !record.text ? {} : { artifacts: [{ artifactId: record.reply_id, name: 'reply', parts: [{ text: record.text }] }] }),
    ...(kept.length ? { history: kept } : {}),
  }
}
