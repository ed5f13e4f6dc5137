// Slice: `queue` and `steers`, the messages that wait for a reply (issue 30). A queued message waits
// for the next reply (its USER_MESSAGE takes it out); a steer waits for the running reply's next step
// boundary (STEER_JOINED takes it out, the conversation slice puts it in the context first). A steer
// the reply ended before joins the queue's front, in order. QUEUE_RETURNED and MESSAGE_UNQUEUED take
// messages back. A state machine: an unknown id changes nothing. Runs after `conversation`.
import type { AgentEvent } from '../lib/core/events.js'
import { copyState } from './shapes.js'
import type { AgentState, QueueEntry } from './state.js'

export const talk = (state: AgentState, event: AgentEvent): AgentState => {
  switch (event.type) {
    case 'MESSAGE_STEERED':
      if (has(state.steers, event.msg.id) || has(state.queue, event.msg.id)) return state
      return withLists(state, state.queue, [...state.steers, entryOf(event.msg, event.created_at)])
    case 'MESSAGE_QUEUED': {
      if (has(state.queue, event.msg.id)) return state
      const entry = entryOf(event.msg, event.created_at)
      return withLists(state, event.first ? [entry, ...state.queue] : [...state.queue, entry], state.steers)
    }
    case 'MESSAGE_UNQUEUED':
      return has(state.queue, event.msg_id) ? withLists(state, state.queue.filter((e) => e.id !== event.msg_id), state.steers) : state
    case 'USER_MESSAGE':
      return has(state.queue, event.msg.id) ? withLists(state, state.queue.filter((e) => e.id !== event.msg.id), state.steers) : state
    case 'STEER_JOINED': {
      if (event.reply_id !== state.reply_id) return state
      const joined = new Set(event.msg_ids)
      return withLists(state, state.queue, state.steers.filter((e) => !joined.has(e.id)))
    }
    case 'QUEUE_RETURNED': {
      const returned = new Set(event.returned.map((e) => e.id))
      return withLists(state, state.queue.filter((e) => !returned.has(e.id)), state.steers.filter((e) => !returned.has(e.id)))
    }
    case 'REPLY_END':
      // A steer that never joined is handled like a queued message: it starts next.
      return state.steers.length && event.reply_id === state.reply_id ? withLists(state, [...state.steers, ...state.queue], []) : state
    default:
      return state
  }
}

const entryOf = (msg: QueueEntry['msg'], queued_at: string): QueueEntry => ({ id: msg.id, msg, queued_at })

const has = (list: QueueEntry[], id: string): boolean => list.some((e) => e.id === id)

const withLists = (state: AgentState, queue: QueueEntry[], steers: QueueEntry[]): AgentState => {
  const next = copyState(state)
  next.queue = queue
  next.steers = steers
  return next
}

/** Every message that waits (the steers first, then the queue), as a Stop hands them back. */
export const waitingMessages = (state: AgentState): QueueEntry[] => [...state.steers, ...state.queue]

/** The queued message to start now: the first, once no reply runs or waits; null otherwise. */
export const queuedToStart = (state: AgentState): QueueEntry | null => (state.status === 'idle' && state.queue.length ? state.queue[0] : null)
