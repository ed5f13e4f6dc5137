// Admission of input: a pure check of an input event against the state, run before anything is
// appended. It returns the error to throw (the log stays as it was), 'noop' for an input that
// changes nothing (USER_INTERRUPT on an agent that is not paused), or null to accept it.
import { AgentError } from '../lib/core/errors.js'
import type { AgentEvent } from '../lib/core/events.js'
import { findToolCall } from './blocks.js'
import type { AgentState } from './state.js'

export const checkInput = (state: AgentState, event: AgentEvent): AgentError | 'noop' | null => {
  switch (event.type) {
    case 'USER_MESSAGE':
      if (state.status === 'paused')
        return new AgentError('REPLY_PAUSED', `Reply ${state.reply_id} is paused, waiting for ${describeWaiting(state)}. Answer it first: agent.approve(id), agent.deny(id, reason) or agent.submitResult(id, result); or discard it with agent.interrupt(). Then send the message.`)
      if (state.status === 'running')
        return new AgentError('REPLY_RUNNING', `Reply ${state.reply_id} is still running. Wait for it to end, or call agent.interrupt() first.`)
      return null
    case 'USER_INTERRUPT':
      if (event.reply_id !== state.reply_id) return wrongReply(state, event.reply_id)
      return state.status === 'paused' ? null : 'noop'
    case 'USER_CONFIRM_RESULT':
    case 'EXTERNAL_EXECUTION_RESULT': {
      if (event.reply_id !== state.reply_id) return wrongReply(state, event.reply_id)
      if (state.status !== 'paused')
        return new AgentError('NOT_PAUSED', `Reply ${event.reply_id} is ${state.status === 'idle' ? 'over' : 'running'}; ${event.type} is only accepted while it is paused.`)
      const confirming = event.type === 'USER_CONFIRM_RESULT'
      const ids = confirming ? event.confirm_results.map((r) => r.tool_call.id) : event.execution_results.map((r) => r.id)
      const expected = confirming ? 'asking' : 'submitted'
      const seen = new Set<string>()
      for (const id of ids) {
        if (seen.has(id)) return new AgentError('INVALID_INPUT', `${event.type} names tool call ${id} twice; give one answer per call.`)
        seen.add(id)
        const call = findToolCall(state.reply_msg, id)
        if (!call) return new AgentError('UNKNOWN_CALL', `${event.type} names tool call ${id}, which reply ${event.reply_id} does not have. Waiting for: ${describeWaiting(state)}.`)
        if (call.state === 'finished') return new AgentError('CALL_CLOSED', `Tool call ${id} (${call.name}) already has its result; ${event.type} for it is refused.`)
        if (call.state !== expected || state.loop?.denied.includes(id))
          return new AgentError(confirming ? 'NOT_ASKING' : 'NOT_SUBMITTED', `Tool call ${id} (${call.name}) is ${call.state}, not ${expected}; ${confirming ? 'only asking calls can be confirmed' : 'only submitted calls take an external result'}. Waiting for: ${describeWaiting(state)}.`)
      }
      if (!confirming) {
        const running = event.execution_results.find((r) => r.state === 'running')
        if (running) return new AgentError('INVALID_INPUT', `The external result for ${running.id} has state "running"; give a final state: success, error, interrupted or denied.`)
      }
      return null
    }
    default:
      return new AgentError('INVALID_EVENT', `${event.type} is not an input event; send a user message, USER_CONFIRM_RESULT, EXTERNAL_EXECUTION_RESULT or USER_INTERRUPT.`)
  }
}

const wrongReply = (state: AgentState, received: string) =>
  new AgentError('WRONG_REPLY', `The event is for reply ${received}, but the current reply is ${state.reply_id ?? '(none yet)'}; use agent.state.reply_id.`)

const describeWaiting = (state: AgentState): string =>
  state.waiting_for.length ? state.waiting_for.map((c) => `${c.name} ${c.id}, ${c.state === 'asking' ? 'asking for approval' : 'waiting for its result'}`).join('; ') : 'nothing'
