// The common answers to a paused reply, built from the state so that callers never assemble input
// events by hand: approve a call (optionally with edited input), deny it, or give an external
// call's result. Pure functions of (state, call id, answer); `Agent` and the hub's session handles
// dispatch what they return. A call that is not waiting is an AgentError saying what is.
import { checkKnownKeys } from '../core/strictOptions.js'
import { systemClock, type Clock } from '../core/clock.js'
import { AgentError, describe } from '../core/errors.js'
import type { ExternalExecutionResultEvent, UserConfirmResultEvent } from '../core/events.js'
import { ExternalExecutionResultEvent as externalResult, ToolResultBlock, UserConfirmResultEvent as confirmResult } from '../core/factories.js'
import type { DataBlock, PermissionRule, TextBlock, ToolCallBlock } from '../core/messages.js'
import type { AgentState } from '../../reducers/state.js'
import { answerOutput, questionOf, type AskUserAnswer } from './askUser.js'

export interface ApproveOptions {
  /** Replaces the call's arguments: an object (sent as JSON) or a JSON string. */
  input?: unknown
  /** Rules that allow (or deny) matching calls from now on. */
  rules?: PermissionRule[]
}

export type ExternalResult =
  | string
  | AskUserAnswer
  | { output: string | (TextBlock | DataBlock)[]; state?: 'success' | 'error' | 'interrupted' | 'denied'; metadata?: Record<string, unknown> }

/** Refuses what names no call (undefined, a number, an object without a string `id`) with INVALID_INPUT, before anything looks it up. */
export const checkCallRef = (call: unknown, verb: string): void => {
  const id = typeof call === 'object' && call !== null ? (call as { id?: unknown }).id : call
  const session = typeof call === 'object' && call !== null ? (call as { session_id?: unknown }).session_id : undefined
  if (typeof id !== 'string' || id === '' || (session !== undefined && typeof session !== 'string'))
    throw new AgentError('INVALID_INPUT', `${verb} needs the call to answer: its id (a string) or a call of \`waiting_for\` ({ id, session_id }); received ${describe(call)}.`)
}

/** The waiting call `callId` in state `expected`, or the AgentError that says why it cannot be answered. */
const waitingCall = (state: AgentState, callId: string, expected: 'asking' | 'submitted'): ToolCallBlock => {
  const waiting = state.waiting_for.map((c) => `${c.id} (${c.name}, ${c.state})`).join(', ') || 'nothing'
  if (state.status !== 'paused') throw new AgentError('NOT_PAUSED', `No reply is paused (the agent is ${state.status}); there is no call ${describe(callId)} to answer.`)
  const call = state.waiting_for.find((c) => c.id === callId)
  if (!call) throw new AgentError('UNKNOWN_CALL', `Reply ${state.reply_id} is not waiting for a call ${describe(callId)}. Waiting for: ${waiting}.`)
  if (call.state !== expected)
    throw new AgentError(expected === 'asking' ? 'NOT_ASKING' : 'NOT_SUBMITTED', `Call ${callId} (${call.name}) is ${call.state}: ${call.state === 'asking' ? 'approve or deny it' : 'give its result with submitResult'}.`)
  return call
}

const inputJson = (input: unknown, callId: string): string => {
  if (typeof input === 'string') {
    try {
      JSON.parse(input)
      return input
    } catch {
      throw new AgentError('INVALID_INPUT', `The edited input for call ${callId} is a string that is not JSON; pass an object or a JSON string.`)
    }
  }
  const json = JSON.stringify(input)
  if (typeof input !== 'object' || input === null || json === undefined) throw new AgentError('INVALID_INPUT', `The edited input for call ${callId} must be an object (the tool's arguments); received ${describe(input)}.`)
  return json
}

/** USER_CONFIRM_RESULT approving `callId`, with its input replaced when `input` is given. */
export const approveEvent = (state: AgentState, callId: string, options: ApproveOptions = {}, clock: Clock = systemClock): UserConfirmResultEvent => {
  checkKnownKeys('approve options', options, ['input', 'rules'])
  const call = waitingCall(state, callId, 'asking')
  const input = options.input === undefined ? call.input : inputJson(options.input, callId)
  return confirmResult({ reply_id: state.reply_id!, confirm_results: [{ confirmed: true, tool_call: { ...call, input }, rules: options.rules ?? null }] }, clock)
}

/** USER_CONFIRM_RESULT denying `callId`; the model sees the denial, and the reason (kept in the event's metadata) with it. */
export const denyEvent = (state: AgentState, callId: string, reason?: string, clock: Clock = systemClock): UserConfirmResultEvent => {
  const call = waitingCall(state, callId, 'asking')
  if (reason !== undefined && typeof reason !== 'string') throw new AgentError('INVALID_INPUT', `The reason for denying call ${callId} must be a string; received ${describe(reason)}.`)
  const event = confirmResult({ reply_id: state.reply_id!, confirm_results: [{ confirmed: false, tool_call: call, rules: null }] }, clock)
  return reason === undefined ? event : { ...event, metadata: { reason } }
}

/** EXTERNAL_EXECUTION_RESULT giving the result of the submitted call `callId` (a string is a successful output). */
export const submitResultEvent = (state: AgentState, callId: string, result: ExternalResult, clock: Clock = systemClock): ExternalExecutionResultEvent => {
  const call = waitingCall(state, callId, 'submitted')
  // An ask_user call takes the user's answer to its question, checked against it.
  const question = questionOf(call)
  if (question) return externalResult({ reply_id: state.reply_id!, execution_results: [ToolResultBlock({ id: call.id, name: call.name, output: answerOutput(question, result, callId) }, clock)] }, clock)
  const given = typeof result === 'string' ? { output: result } : result
  if (typeof given !== 'object' || given === null || !('output' in given))
    throw new AgentError('INVALID_INPUT', `The result for call ${callId} must be a string or { output, state? }; received ${describe(result)}.`)
  return externalResult({ reply_id: state.reply_id!, execution_results: [ToolResultBlock({ id: call.id, name: call.name, ...given }, clock)] }, clock)
}
