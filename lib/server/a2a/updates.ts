// A task's updates as A2A stream responses, from the reply's events (the live reply's own stream, or
// the session's log followed from a seq): first the task, then one artifact chunk per text delta
// (`append` after the first), a WORKING status when a parked reply goes on, and last the status it
// stops at: INPUT_REQUIRED (what the tree waits for) or the terminal one with the final text. The
// stream ends there, as the SDK's does. The reply's state decides a pause, not the event alone.
import { Observable } from 'rxjs'
import type { AgentEvent } from '../../core/events.js'
import type { Msg } from '../../core/messages.js'
import type { SessionHandle } from '../../hub/types.js'
import type { WaitingCall } from '../../agent/text.js'
import { foldTask, statusOf, taskIdOf, taskJson, type TaskRecord } from './tasks.js'

export type StreamResponse = Record<string, unknown>

/** Where a task's updates start: a new reply (its user message), or a known task (its record so far). */
export type Start = { user: Msg | null } | { record: TaskRecord }

export interface Updates {
  /** The task as it stands after the last response given. */
  readonly record: TaskRecord | null
  readonly waiting: readonly WaitingCall[]
}

/** Yields the stream responses of one task until it parks or ends; `view` reads the task as it stands. */
export async function* taskUpdates(handle: SessionHandle, events: AsyncIterable<AgentEvent>, start: Start, view: { record: TaskRecord | null; waiting: readonly WaitingCall[] }): AsyncGenerator<StreamResponse> {
  const session_id = handle.session_id
  const tasks = new Map<string, TaskRecord>()
  const pending = { user: 'user' in start ? start.user : null }
  let record: TaskRecord | null = 'record' in start ? start.record : null
  if (record) {
    tasks.set(record.reply_id, record)
    view.record = record
    yield { task: taskJson(session_id, record, []) }
  }
  let chunks = 0
  for await (const event of events) {
    const tagged = typeof event.metadata.session_id === 'string' && event.metadata.session_id !== session_id
    if (tagged) {
      // A sub-agent of the tree parked: the root stays parked, the tree now waits for it.
      if (record && (event.type === 'REQUIRE_USER_CONFIRM' || event.type === 'REQUIRE_EXTERNAL_EXECUTION') && (await parked(handle, record.reply_id))) return yield* stop(handle, record, view)
      continue
    }
    if (!record && event.type !== 'REPLY_START' && event.type !== 'USER_MESSAGE') continue
    if (record && 'reply_id' in event && event.reply_id !== record.reply_id) continue
    const before = record?.state
    const touched = foldTask(tasks, event, pending)
    if (!touched) continue
    if (!record) {
      record = touched
      view.record = record
      yield { task: taskJson(session_id, record, []) }
      continue
    }
    const taskId = taskIdOf(session_id, record.reply_id)
    if (event.type === 'TEXT_BLOCK_DELTA')
      yield { artifactUpdate: { taskId, contextId: session_id, artifact: { artifactId: record.reply_id, name: 'reply', parts: [{ text: event.delta }] }, ...(chunks++ ? { append: true } : {}) } }
    else if (record.end) return yield* stop(handle, record, view)
    else if (record.state === 'TASK_STATE_INPUT_REQUIRED') {
      if (await parked(handle, record.reply_id)) return yield* stop(handle, record, view)
      record.state = 'TASK_STATE_WORKING' // a batch announced its ask while other calls still run
    } else if (before === 'TASK_STATE_INPUT_REQUIRED') yield { statusUpdate: { taskId, contextId: session_id, status: statusOf(session_id, record, []) } }
  }
}

/** The last status: INPUT_REQUIRED with what the tree waits for, or the terminal one. */
async function* stop(handle: SessionHandle, record: TaskRecord, view: { waiting: readonly WaitingCall[] }): AsyncGenerator<StreamResponse> {
  if (!record.end) {
    record.state = 'TASK_STATE_INPUT_REQUIRED'
    view.waiting = await handle.waiting()
  }
  const session_id = handle.session_id
  yield { statusUpdate: { taskId: taskIdOf(session_id, record.reply_id), contextId: session_id, status: statusOf(session_id, record, view.waiting) } }
}

/**
 * Whether the reply is parked now. A followed log may deliver the pause before the owner's state has
 * it (the store publishes on append): asked again after a short wait a few times.
 */
const parked = async (handle: SessionHandle, reply_id: string): Promise<boolean> => {
  for (let i = 0; i < 20; i++) {
    const state = await handle.state()
    if (state.reply_id !== reply_id || state.status === 'idle') return false
    if (state.status === 'paused' && (await handle.waiting()).length > 0) return true
    await new Promise((resolve) => setTimeout(resolve, 5 * (i + 1)))
  }
  return false
}

/** An Observable as an async iterable (queued; leaving the loop unsubscribes). */
export const iterate = <T>(source: Observable<T>): AsyncIterable<T> => ({
  [Symbol.asyncIterator]() {
    let queue: T[] = []
    let head = 0
    let wake: (() => void) | null = null
    let done = false
    let failure: { error: unknown } | null = null
    const subscription = source.subscribe({
      next: (value) => {
        queue.push(value)
        wake?.()
      },
      error: (error: unknown) => {
        failure = { error }
        wake?.()
      },
      complete: () => {
        done = true
        wake?.()
      },
    })
    return {
      async next(): Promise<IteratorResult<T>> {
        for (;;) {
          if (head < queue.length) {
            const value = queue[head++]
            if (head === queue.length) {
              queue = []
              head = 0
            }
            return { value, done: false }
          }
          if (failure) throw failure.error
          if (done) return { value: undefined, done: true }
          await new Promise<void>((resolve) => (wake = resolve))
          wake = null
        }
      },
      async return(): Promise<IteratorResult<T>> {
        subscription.unsubscribe()
        done = true
        return { value: undefined, done: true }
      },
    }
  },
})
