// The agent's state: plain JSON, derived only by folding the log. `context` holds the conversation
// up to the reply in progress; `reply_msg` is that reply's one assistant message (id = reply_id)
// while it runs or is paused, and joins the context at REPLY_END. `loop` is the running reply's
// bookkeeping that the scheduler and the interrupt function read.
import type { Msg, PermissionRule, ToolCallBlock, Usage } from '../lib/core/messages.js'
import { zeroUsage } from '../lib/core/messages.js'

export type ReplyStatus = 'idle' | 'running' | 'paused'

export interface LoopState {
  /** A model call has started and not ended. */
  model_call_open: boolean
  /** The usage the open model call has reported so far; null until it reports some. */
  model_call_usage: Usage | null
  /** Where the latest model call's blocks start in the reply message (new blocks are unique from here). */
  round_start: number
  /** Ids of the tool calls of the latest model call, in order. */
  round_calls: string[]
  /** The latest model call gave a final answer: it completed without tool calls and not with thinking only. */
  round_final: boolean
  /** Calls the user denied whose denial result is not recorded yet. */
  denied: string[]
  /** Calls a RUNS_DECIDED announced that have not started yet (the reply is busy until they have). */
  starting?: string[]
  /** Calls whose external result was received and is being recorded. */
  external?: string[]
  /** The reasons the user gave for some of `denied` (the USER_CONFIRM_RESULT's `metadata.reason`); absent when none. */
  denial_reasons?: Record<string, string>
  /** An interrupt was requested: nothing more is planned, the reply is being closed. */
  closing: boolean
  /** A gentle stop was requested (STOP_REQUESTED): what runs finishes, nothing new starts; `keep` says whether the queue stays. */
  stopping?: { keep_queue: boolean }
  /** The JSON Schema of the structured output the reply ends with (the USER_MESSAGE's `metadata.output_schema`); absent when none. */
  output_schema?: Record<string, unknown>
  /** The structured output, once a call of the output tool succeeded: that call's arguments. */
  structured_output?: Record<string, unknown>
}

/** A message waiting for a reply: queued (starts the next reply) or steered (joins the running one). */
export interface QueueEntry {
  /** The message's id: queue() resolves to it, unqueue() takes it. */
  id: string
  msg: Msg
  /** When it was acknowledged (its event's created_at). */
  queued_at: string
}

/** A summary that stands in for the history before a position (see reducers/compaction.ts). */
export interface Compaction {
  /** The id and time of the CONTEXT_COMPACTED event. */
  id: string
  created_at: string
  summary: string
  /** Whole messages of the history covered, then blocks of the next message covered. */
  messages: number
  blocks: number
}

export interface AgentState {
  /** Position of the last event folded (the log's length). */
  seq: number
  session_id: string | null
  /** The reply in progress, or the last one. */
  reply_id: string | null
  status: ReplyStatus
  /**
   * Reasoning-acting rounds of the reply finished so far, as AgentScope counts them: a model call
   * that asked for no tool, or the tools the agent ran until every call of the round had its
   * result. A round finished by the user's answers alone (denials, external results) or cut by an
   * interrupt does not count.
   */
  cur_iter: number
  context: Msg[]
  reply_msg: Msg | null
  /** While paused: the calls waiting for a confirmation (asking) or an external result (submitted). */
  waiting_for: ToolCallBlock[]
  /** Token usage of the whole session. */
  usage: Usage
  /** Rules the user granted with confirmations, applied before a tool's own permission. */
  permission_rules: PermissionRule[]
  loop: LoopState | null
  /** The latest compaction of what the model is sent, or null. */
  compaction: Compaction | null
  /** Messages that start the next replies, in order (MESSAGE_QUEUED; a steer the reply ended before joins them first). */
  queue: QueueEntry[]
  /** Steers waiting to join the running reply at its next step boundary, in order. */
  steers: QueueEntry[]
}

/**
 * The version of the fold: what the reducers make of a log. Bump it whenever the same events fold to
 * a different state (a field added or dropped, a count or a message made differently), so that
 * snapshots saved by an older fold are ignored and the log is replayed (see reducers/snapshot.ts).
 * 2: issue 20 (cur_iter counts finished rounds, an interrupted reply with no output adds no
 * message, usage null until reported, the loop's starting/external/closing fields).
 * 3: issue 21 (a running result block carries its TOOL_RESULT_START's metadata: a sub-agent call's
 * `child_session_id` is in the state while the call runs or waits).
 * 4: issue 30 (the state's `queue` and `steers`).
 */
export const FOLD_VERSION = 4

export const initialState = (): AgentState => ({
  seq: 0,
  session_id: null,
  reply_id: null,
  status: 'idle',
  cur_iter: 0,
  context: [],
  reply_msg: null,
  waiting_for: [],
  usage: zeroUsage(),
  permission_rules: [],
  loop: null,
  compaction: null,
  queue: [],
  steers: [],
})

export const freshLoop = (): LoopState => ({
  model_call_open: false,
  model_call_usage: null,
  round_start: 0,
  round_calls: [],
  round_final: false,
  denied: [],
  closing: false,
})
