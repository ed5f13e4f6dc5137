// Slice: the reply's lifecycle (`session_id`, `reply_id`, `status`, `cur_iter`, `waiting_for`,
// `loop`). Status is derived from the reply's tool calls whenever one of them changes: the reply is
// paused when nothing runs or remains to be done and some call waits for the user (asking) or for
// an external result (submitted); running otherwise. Reads `reply_msg`, so it runs after `conversation`.
import type { AgentEvent } from '../lib/core/events.js'
import type { Msg, ToolCallBlock } from '../lib/core/messages.js'
import { findToolCall, toolCallsFrom } from './blocks.js'
import { copyState } from './shapes.js'
import { argumentsOf, STRUCTURED_OUTPUT_TOOL } from './structuredOutput.js'
import { freshLoop, type AgentState, type LoopState } from './state.js'

export const reply = (state: AgentState, event: AgentEvent): AgentState => {
  // The output schema a message asks for waits in a fresh loop for the REPLY_START that follows
  // (logs of earlier versions recorded it on the REPLY_START itself).
  if (event.type === 'USER_MESSAGE') {
    const { output_schema } = event.metadata
    return isJsonObject(output_schema) ? { ...state, loop: { ...freshLoop(), output_schema } } : state.loop && state.status === 'idle' ? { ...state, loop: null } : state
  }
  if (event.type === 'REPLY_START') {
    const output_schema = event.metadata.output_schema ?? (state.status === 'idle' ? state.loop?.output_schema : undefined)
    const loop = isJsonObject(output_schema) ? { ...freshLoop(), output_schema } : freshLoop()
    return { ...state, session_id: event.session_id, reply_id: event.reply_id, status: 'running', cur_iter: 0, waiting_for: [], loop }
  }
  const loop = state.loop
  if (!loop || !('reply_id' in event) || event.reply_id !== state.reply_id) return state
  switch (event.type) {
    case 'REPLY_END':
      return { ...state, status: 'idle', waiting_for: [], loop: null }
    case 'MODEL_CALL_START':
      return { ...state, loop: { ...loop, model_call_open: true, model_call_usage: null, round_start: state.reply_msg?.content.length ?? 0, round_calls: [], round_final: false } }
    case 'MODEL_CALL_USAGE': {
      const { input_tokens, output_tokens, cache_input_tokens, cache_creation_input_tokens } = event
      return withLoop(state, { ...loop, model_call_usage: { input_tokens, output_tokens, cache_input_tokens, cache_creation_input_tokens } })
    }
    case 'MODEL_CALL_END': {
      // A model call that asked for no tool finishes its round.
      const finished = event.finished_reason === 'completed' && loop.round_calls.length === 0
      const round_final = finished && !thinkingOnly(state.reply_msg, loop.round_start)
      return { ...state, cur_iter: finished ? state.cur_iter + 1 : state.cur_iter, loop: { ...loop, model_call_open: false, round_final } }
    }
    case 'TOOL_CALL_START':
      return loop.round_calls.includes(event.tool_call_id) ? state : withLoop(state, { ...loop, round_calls: [...loop.round_calls, event.tool_call_id] })
    // USER_INTERRUPT is admitted only while paused, but one sent during the delivery of a burst
    // can land after the burst resumed the reply: it then interrupts it like a cancel.
    case 'INTERRUPT_REQUESTED':
    case 'USER_INTERRUPT':
      return { ...state, status: 'running', waiting_for: [], loop: { ...loop, closing: true } }
    case 'USER_CONFIRM_RESULT': {
      const denied = event.confirm_results.filter((r) => !r.confirmed && !loop.denied.includes(r.tool_call.id)).map((r) => r.tool_call.id)
      if (!denied.length) return withStatus(state)
      const reason = event.metadata.reason
      const denial_reasons = typeof reason === 'string' ? { ...loop.denial_reasons, ...Object.fromEntries(denied.map((id) => [id, reason])) } : loop.denial_reasons
      return withStatus({ ...state, loop: { ...loop, denied: [...loop.denied, ...denied], ...(denial_reasons && { denial_reasons }) } })
    }
    case 'TOOL_RESULT_END': {
      const id = event.tool_call_id
      const answered = loop.denied.includes(id) || !!loop.external?.includes(id)
      const structured_output = event.state === 'success' && loop.output_schema ? outputOf(state.reply_msg, id) : undefined
      const updated = answered ? withoutAnswer(loop, id) : loop
      const next = answered || structured_output ? { ...state, loop: structured_output ? { ...updated, structured_output } : updated } : state
      return withStatus(roundFinishedByAgent(next, event.state, answered) ? { ...next, cur_iter: next.cur_iter + 1 } : next)
    }
    case 'EXTERNAL_EXECUTION_RESULT':
      return withStatus({ ...state, loop: { ...loop, external: [...(loop.external ?? []), ...event.execution_results.map((r) => r.id)] } })
    case 'RUNS_DECIDED':
      return withLoop(state, { ...loop, starting: [...(loop.starting ?? []), ...event.tool_call_ids] })
    case 'TOOL_RESULT_START':
      if (loop.starting?.includes(event.tool_call_id)) {
        const starting = loop.starting.filter((id) => id !== event.tool_call_id)
        const { starting: _started, ...rest } = loop
        return withStatus({ ...state, loop: starting.length ? { ...rest, starting } : rest })
      }
      return withStatus(state)
    case 'REQUIRE_USER_CONFIRM':
    case 'REQUIRE_EXTERNAL_EXECUTION':
      return withStatus(state)
    // Steers joined at a step boundary: the reply goes on with a fresh round in its continuation message.
    case 'STEER_JOINED':
      return withLoop(state, { ...loop, round_start: 0, round_calls: [], round_final: false })
    // A gentle stop: nothing new is planned, and the reply is not parked any more (the planner closes it).
    case 'STOP_REQUESTED':
      return loop.closing || loop.stopping ? state : withStatus({ ...state, loop: { ...loop, stopping: { keep_queue: event.keep_queue } } })
    default:
      return state
  }
}

const withLoop = (state: AgentState, loop: LoopState): AgentState => {
  const next = copyState(state)
  next.loop = loop
  return next
}

/** The calls of the current round that are not finished, in order (one walk over the round's blocks). */
export const unfinishedCalls = (msg: Msg | null, loop: LoopState): ToolCallBlock[] =>
  toolCallsFrom(msg, loop.round_start).filter((call) => call.state !== 'finished')

/** Some call of the current round is not finished: a walk that stops at the first. */
const someUnfinished = (msg: Msg | null, loop: LoopState, which: (call: ToolCallBlock) => boolean = () => true): boolean => {
  const content = msg?.content ?? []
  for (let i = loop.round_start; i < content.length; i++) {
    const block = content[i]
    if (block.type === 'tool_call' && block.state !== 'finished' && which(block)) return true
  }
  return false
}

/**
 * Paused: no model call open, no local tool running, nothing decided that still has to be done
 * (a confirmed call to run, a denial to record), and at least one call waiting for the user or an
 * external result. Pending calls do not count: they wait behind an asking call of an earlier batch.
 */
const withStatus = (state: AgentState): AgentState => {
  const loop = state.loop!
  if (loop.closing) return state
  if (loop.stopping) return state.status === 'running' && state.waiting_for.length === 0 ? state : { ...state, status: 'running', waiting_for: [] }
  // Busy and shown running already (a batch of tools at work): nothing to walk. The walk for a
  // running call stops at the first one, so per-event work does not grow with the batch.
  const busyAnyway = loop.model_call_open || loop.denied.length > 0 || !!loop.starting?.length
  const shownRunning = state.status === 'running' && state.waiting_for.length === 0
  if (shownRunning && (busyAnyway || someUnfinished(state.reply_msg, loop, (c) => c.state === 'allowed'))) return state
  const open = unfinishedCalls(state.reply_msg, loop)
  const waiting = open.filter((c) => (c.state === 'asking' && !loop.denied.includes(c.id)) || c.state === 'submitted')
  const busy = busyAnyway || open.some((c) => c.state === 'allowed')
  const paused = !busy && waiting.length > 0
  const status = paused ? 'paused' : 'running'
  const waiting_for = paused ? waiting : []
  if (status === state.status && waiting_for.length === 0 && state.waiting_for.length === 0) return state
  return { ...state, status, waiting_for }
}

/**
 * A result the agent recorded (a tool it ran, or an answer it made) that leaves no call of the
 * round without a result finishes the round. Results of the user's answers (denials, external
 * results) and the results an interrupt writes do not: AgentScope records those outside its loop.
 */
const roundFinishedByAgent = (state: AgentState, resultState: string, answered: boolean): boolean =>
  !answered && resultState !== 'interrupted' && !state.loop!.closing && !someUnfinished(state.reply_msg, state.loop!)

/** `loop` once the user's answer to `id` is recorded: no longer denied (its reason dropped) nor awaited from outside. */
const withoutAnswer = (loop: LoopState, id: string): LoopState => {
  const { denial_reasons, external, ...rest } = loop
  const next: LoopState = { ...rest, denied: loop.denied.filter((d) => d !== id) }
  const awaited = external?.filter((e) => e !== id)
  if (awaited?.length) next.external = awaited
  if (!denial_reasons) return next
  const { [id]: _dropped, ...others } = denial_reasons
  return Object.keys(others).length ? { ...next, denial_reasons: others } : next
}

/** A model call's output (its blocks from `from` on) that is nothing but thinking is not an answer. */
const thinkingOnly = (msg: Msg | null, from: number): boolean => {
  const content = msg?.content ?? []
  if (content.length <= from) return false
  for (let i = from; i < content.length; i++) if (content[i].type !== 'thinking') return false
  return true
}

/** The arguments of call `id` when it is a call of the structured-output tool (checked by the tool when it succeeded). */
const outputOf = (msg: Msg | null, id: string): Record<string, unknown> | undefined => {
  const call = findToolCall(msg, id)
  return call?.name === STRUCTURED_OUTPUT_TOOL ? argumentsOf(call.input) ?? undefined : undefined
}

const isJsonObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)
