// The interrupt, as one pure function of the state: the events that close the reply in progress.
// Open blocks get their *_END, an open model call its MODEL_CALL_END(interrupted) with the usage
// known so far, every tool call without a result the missing part of a START/DELTA/END triple
// (running results first, so partial output is kept), then REPLY_END. The same function serves a
// cancel while running, USER_INTERRUPT while paused, a model failure, and a log cut by a crash;
// a person's Stop (`returnQueue`) also hands the waiting messages back before REPLY_END.
import type { Clock } from '../lib/core/clock.js'
import { createEvent } from '../lib/core/clock.js'
import type { AgentEvent } from '../lib/core/events.js'
import { zeroUsage, type ErrorInfo, type Msg, type ToolCallBlock } from '../lib/core/messages.js'
import { findToolResult, toolCallsFrom } from './blocks.js'
import type { AgentState } from './state.js'
import { waitingMessages } from './talk.js'

export const INTERRUPTION_REMINDER = '<system-reminder>The tool call has been interrupted by the user.</system-reminder>'

export interface CloseOptions {
  reason: 'interrupted' | 'error'
  error?: ErrorInfo | null
  /** The text that closes each unfinished tool result. */
  reminder?: string
  /** A person's Stop: the waiting messages (queue and steers) are handed back (QUEUE_RETURNED) instead of starting next. */
  returnQueue?: boolean
}

const endTypes = { text: 'TEXT_BLOCK_END', thinking: 'THINKING_BLOCK_END', data: 'DATA_BLOCK_END' } as const

export const closeReply = (state: AgentState, clock: Clock, options: CloseOptions): AgentEvent[] => {
  const msg = state.reply_msg
  const loop = state.loop
  if (!msg || !loop || state.session_id === null) return []
  const reply_id = state.reply_id ?? msg.id
  const reminder = options.reminder ?? (options.reason === 'error' ? failureReminder(options.error) : INTERRUPTION_REMINDER)
  const resultState = options.reason === 'error' ? 'error' : 'interrupted'
  const events: AgentEvent[] = []

  for (const block of msg.content) {
    if (block.finished_at !== null) continue
    if (block.type === 'tool_call') events.push(createEvent(clock, 'TOOL_CALL_END', { reply_id, tool_call_id: block.id }))
    else if (block.type in endTypes) events.push(createEvent(clock, endTypes[block.type as keyof typeof endTypes], { reply_id, block_id: block.id }))
  }
  if (loop.model_call_open) events.push(createEvent(clock, 'MODEL_CALL_END', { reply_id, ...(loop.model_call_usage ?? zeroUsage()), finished_reason: 'interrupted' }))

  const open = msg.content.filter((b): b is ToolCallBlock => b.type === 'tool_call' && b.state !== 'finished')
  const started = open.filter((c) => findToolResult(msg, c.id)?.state === 'running')
  const unstarted = open.filter((c) => !started.includes(c))
  const due = started.length ? null : turnCame(msg, loop.round_start)
  for (const call of [...started, ...unstarted]) {
    const tool_call_id = call.id
    if (!started.includes(call)) events.push(createEvent(clock, 'TOOL_RESULT_START', { reply_id, tool_call_id, tool_call_name: call.name }))
    // Its turn had come (the calls before it had ended): closed as a call stopped as it started, its output a list of blocks, as AgentScope's.
    if (call === due) events.push(createEvent(clock, 'TOOL_STARTED', { reply_id, tool_call_id, metadata: { not_run: true } }))
    events.push(createEvent(clock, 'TOOL_RESULT_TEXT_DELTA', { reply_id, tool_call_id, delta: reminder }))
    events.push(createEvent(clock, 'TOOL_RESULT_END', { reply_id, tool_call_id, state: resultState }))
  }
  const waiting = options.returnQueue ? waitingMessages(state) : []
  if (waiting.length) events.push(createEvent(clock, 'QUEUE_RETURNED', { reply_id, returned: waiting }))
  events.push(createEvent(clock, 'REPLY_END', {
    session_id: state.session_id, reply_id, finished_reason: options.reason, error: options.error ?? null,
  }))
  return events
}

/**
 * The call of the round whose turn had come when nothing runs: the first unfinished one, without a
 * result, after calls that all ended on their own (not interrupted). AgentScope starts the next
 * tool as soon as the one before ends, so a Stop then finds it started.
 */
const turnCame = (msg: Msg, roundStart: number): ToolCallBlock | null => {
  const calls = toolCallsFrom(msg, roundStart)
  const next = calls.findIndex((c) => c.state !== 'finished')
  if (next <= 0 || findToolResult(msg, calls[next].id)) return null
  const before = findToolResult(msg, calls[next - 1].id)
  return before && before.state !== 'interrupted' ? calls[next] : null
}

const failureReminder = (error?: ErrorInfo | null) =>
  `<system-reminder>The tool call was not executed because the model call failed${error ? `: ${error.message}` : ''}.</system-reminder>`
