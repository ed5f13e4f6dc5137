// A RunAgentInput read against the session's state: what the run asks of the agent. The client
// sends the whole conversation every run, so only what the log does not hold yet is new: a user
// message starts a reply, `role: "tool"` messages answer the front-end calls the reply waits for,
// and `resume` answers interrupts (all cancelled: USER_INTERRUPT), the root's own or its sub-agents'
// (each answered in the sub-agent's reply, which the root's run follows). A history that contradicts the
// log, a partial resume, or new input while interrupts are pending is refused; nothing is applied.
import { z } from 'zod'
import type { AgentInput } from '../../agent/agent.js'
import { systemClock, type Clock } from '../../core/clock.js'
import { AgentError, describe, type AgentErrorCode } from '../../core/errors.js'
import { ExternalExecutionResultEvent, ToolResultBlock, UserConfirmResultEvent, UserInterruptEvent, UserMsg } from '../../core/factories.js'
import type { Msg, ToolCallBlock } from '../../core/messages.js'
import type { AgentState } from '../../../reducers/state.js'
import { interruptId, resultMessageId, toolCallParentId, type DescendantAsks } from './toAgUi.js'
import type { AgUiMessage, AgUiResume, RunAgentInput } from './types.js'

const MessageSchema = z.looseObject({
  id: z.string().min(1),
  role: z.enum(['developer', 'system', 'assistant', 'user', 'tool', 'activity', 'reasoning']),
  content: z.unknown().optional(),
  toolCalls: z.array(z.looseObject({ id: z.string(), type: z.literal('function'), function: z.looseObject({ name: z.string(), arguments: z.string() }) })).optional(),
  toolCallId: z.string().optional(),
  error: z.string().optional(),
})
export const RunAgentInputSchema = z.looseObject({
  threadId: z.string().min(1),
  runId: z.string().min(1),
  messages: z.array(MessageSchema),
  tools: z.array(z.looseObject({ name: z.string(), description: z.string(), parameters: z.unknown().optional() })).optional(),
  resume: z.array(z.looseObject({ interruptId: z.string(), status: z.enum(['resolved', 'cancelled']), payload: z.unknown().optional() })).optional(),
})

/** What a run does: send one input to the agent, or nothing (a resume already applied). */
export type RunPlan =
  | { kind: 'input'; input: AgentInput; reply_id?: string; externalCallIds: string[]; before?: AgentInput[] }
  | { kind: 'none'; reply_id: string | null }
  /** A new user message for a thread whose run still runs: a steer of the running reply, whose events the run streams to its end. */
  | { kind: 'steer'; input: AgentInput; reply_id: string; externalCallIds: string[] }

const refuse = (code: AgentErrorCode, message: string): never => {
  throw new AgentError(code, message)
}

/** Parses the request body as a RunAgentInput; INVALID_INPUT says which field is wrong. */
export const parseRunInput = (body: unknown): RunAgentInput => {
  const parsed = RunAgentInputSchema.safeParse(body)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    refuse('INVALID_INPUT', `The body is not an AG-UI RunAgentInput: ${issue.path.join('.') || '(body)'}: ${issue.message}.`)
  }
  const run = parsed.data as RunAgentInput
  run.messages.forEach((m, i) => {
    const textual = typeof m.content === 'string' || Array.isArray(m.content) || (m.role === 'tool' && m.content === undefined)
    if ((m.role === 'user' || m.role === 'tool') && !textual)
      refuse('INVALID_INPUT', `The body is not an AG-UI RunAgentInput: messages.${i} (${m.role} message ${m.id}) must have content as a string or a list of parts; received ${describe(m.content)}.`)
  })
  return run
}

/** The root's sub-agents: the calls they wait on to be confirmed, and whether one of their logs answered a call. */
export interface Descendants {
  asks: readonly DescendantAsks[]
  answered: (call_id: string) => boolean
}

const NO_DESCENDANTS: Descendants = { asks: [], answered: () => false }

export const planRun = (state: AgentState, run: RunAgentInput, clock: Clock = systemClock, { asks: descendants, answered }: Descendants = NO_DESCENDANTS): RunPlan => {
  const own = state.status === 'paused' ? state.waiting_for.filter((c) => c.state === 'asking') : []
  const asks = state.status !== 'paused' ? [] : own.length ? [{ session_id: '', reply_id: state.reply_id!, calls: own }] : descendants.filter((d) => d.calls.length)
  const pendingInterrupts = asks.flatMap((d) => d.calls)
  if (run.resume?.length) return planResume(state, asks, run.resume, clock, answered)
  if (pendingInterrupts.length)
    refuse('REPLY_PAUSED', `The run is paused on interrupts ${asks.flatMap((d) => d.calls.map((c) => interruptId(d.session_id, c.id))).join(', ')}; answer every one with resume (resolved or cancelled) before sending new input.`)
  const fresh = newMessages(state, run.messages)
  const toolAnswers = fresh.filter((m) => m.role === 'tool')
  const userMessages = fresh.filter((m) => m.role === 'user')
  if (toolAnswers.length) {
    if (userMessages.length) refuse('INVALID_INPUT', 'The run sends new tool results and a new user message together; send the tool results first, then the message in the next run.')
    return answerExternalCalls(state, toolAnswers, clock)
  }
  if (userMessages.length !== 1)
    refuse('INVALID_INPUT', userMessages.length ? `The run sends ${userMessages.length} new user messages; send one per run.` : 'The run sends no new user message, tool result or resume: there is nothing to answer.')
  const msg = UserMsg({ content: userText(userMessages[0]) }, clock)
  if (state.status === 'running' && state.reply_id) return { kind: 'steer', input: { ...msg, id: userMessages[0].id }, reply_id: state.reply_id, externalCallIds: [] }
  return { kind: 'input', input: { ...msg, id: userMessages[0].id }, externalCallIds: [] }
}

const planResume = (state: AgentState, asks: readonly DescendantAsks[], resume: AgUiResume[], clock: Clock, answeredBelow: (id: string) => boolean): RunPlan => {
  const pending = asks.flatMap((d) => d.calls)
  if (!pending.length) {
    // A repeated resume changes nothing, whether it answered the root's calls or its sub-agents'.
    const answered = resume.every((r) => isAnsweredCall(state, r.interruptId) || answeredBelow(r.interruptId))
    if (answered) return { kind: 'none', reply_id: state.reply_id }
    refuse('NOT_PAUSED', `The resume answers interrupts ${resume.map((r) => r.interruptId).join(', ')}, but nothing is waiting for an answer; start a new run without resume.`)
  }
  // Interrupts are keyed by session and call (two sub-agents may both wait on `call_0`).
  const keys = asks.flatMap((d) => d.calls.map((c) => interruptId(d.session_id, c.id)))
  const byKey = new Map(resume.map((r) => [r.interruptId, r]))
  const missing = keys.filter((key) => !byKey.has(key))
  if (missing.length || byKey.size !== resume.length || resume.some((r) => !keys.includes(r.interruptId)))
    refuse('INVALID_INPUT', `The resume must answer every open interrupt exactly once: open ${keys.join(', ')}; received ${resume.map((r) => r.interruptId).join(', ')}.`)
  const answerOf = (session_id: string, call: ToolCallBlock) => byKey.get(interruptId(session_id, call.id))!
  const reply_id = state.reply_id!
  if (resume.every((r) => r.status === 'cancelled')) return { kind: 'input', input: UserInterruptEvent({ reply_id }, clock), reply_id, externalCallIds: [] }
  const confirmation = (session_id: string, reply_id: string, calls: readonly ToolCallBlock[]) => UserConfirmResultEvent({ reply_id, confirm_results: calls.map((call) => {
    const answer = answerOf(session_id, call)
    const payload = (answer.payload ?? {}) as { approved?: unknown; editedArgs?: unknown }
    const confirmed = answer.status === 'resolved' && payload.approved !== false
    const edited = confirmed && typeof payload.editedArgs === 'object' && payload.editedArgs !== null
    return { confirmed, tool_call: edited ? { ...call, input: JSON.stringify(payload.editedArgs) } : call }
  }) }, clock)
  // A sub-agent's external call: the payload is its result; a cancelled one an error result saying so.
  const results = (session_id: string, reply_id: string, calls: readonly ToolCallBlock[]) => ExternalExecutionResultEvent({ reply_id, execution_results: calls.map((call) => {
    const answer = answerOf(session_id, call)
    const payload = (answer.payload ?? {}) as { output?: unknown; error?: unknown }
    const output = answer.status === 'cancelled' ? 'The user cancelled this call.' : typeof payload.output === 'string' ? payload.output : JSON.stringify(payload.output ?? null)
    return ToolResultBlock({ id: call.id, name: call.name, output, state: answer.status === 'cancelled' || payload.error === true ? 'error' : 'success' }, clock)
  }) }, clock)
  // Several sub-agents waiting: each is answered; the run follows the root's reply from the last answer.
  const inputs = asks.flatMap(({ session_id, reply_id, calls }) => {
    const asking = calls.filter((c) => c.state === 'asking')
    const external = calls.filter((c) => c.state !== 'asking')
    return [...(asking.length ? [confirmation(session_id, reply_id, asking)] : []), ...(external.length ? [results(session_id, reply_id, external)] : [])]
  })
  return { kind: 'input', input: inputs.at(-1)!, before: inputs.slice(0, -1), reply_id, externalCallIds: [] }
}

const answerExternalCalls = (state: AgentState, answers: AgUiMessage[], clock: Clock): RunPlan => {
  const waiting = state.status === 'paused' ? state.waiting_for.filter((c) => c.state === 'submitted') : []
  const execution_results = answers.map((m) => {
    const call = waiting.find((c) => c.id === m.toolCallId)
    if (!call) return refuse('UNKNOWN_CALL', `Tool message ${m.id} answers tool call ${m.toolCallId ?? '(none)'}, which is not waiting for a front-end result.`)
    const text = userText(m)
    return ToolResultBlock({ id: call.id, name: call.name, output: text || m.error || '', state: m.error ? 'error' : 'success' }, clock)
  })
  const reply_id = state.reply_id!
  return { kind: 'input', input: ExternalExecutionResultEvent({ reply_id, execution_results }, clock), reply_id, externalCallIds: execution_results.map((r) => r.id) }
}

/** The client's messages the log does not hold, refusing a history that contradicts it. */
export const newMessages = (state: AgentState, messages: AgUiMessage[]): AgUiMessage[] => {
  const known = knownMessages(state)
  let lastKnown = -1
  messages.forEach((m, i) => {
    const ours = known.ids.get(m.id)
    const answeredTool = m.role === 'tool' && m.toolCallId !== undefined && known.answeredCalls.has(m.toolCallId)
    if (ours === undefined && !answeredTool) return
    if (ours !== undefined && ours.role !== m.role)
      refuse('LOG_CONFLICT', `Message ${m.id} is a ${m.role} message in the request but a ${ours.role} message in the session; reload the conversation (GET /sessions/:id).`)
    if (ours?.text !== undefined && userText(m) !== ours.text)
      refuse('LOG_CONFLICT', `Message ${m.id} differs from the session's copy; the history cannot be rewritten. Reload the conversation or start a new thread.`)
    for (const call of m.toolCalls ?? [])
      if (!known.calls.has(call.id)) refuse('LOG_CONFLICT', `Message ${m.id} carries tool call ${call.id}, which the session never made.`)
    lastKnown = i
  })
  const fresh: AgUiMessage[] = []
  messages.forEach((m, i) => {
    if (known.ids.has(m.id) || (m.role === 'tool' && m.toolCallId !== undefined && known.answeredCalls.has(m.toolCallId))) return
    if (m.role !== 'user' && m.role !== 'tool' && m.role !== 'assistant') return
    if (i < lastKnown) refuse('LOG_CONFLICT', `Message ${m.id} (${m.role}) sits before messages the session already has; the history cannot be rewritten.`)
    if (m.role === 'assistant') refuse('LOG_CONFLICT', `Assistant message ${m.id} is not the agent's; a client cannot add assistant messages to the session.`)
    fresh.push(m)
  })
  return fresh
}

interface Known {
  ids: Map<string, { role: AgUiMessage['role']; text?: string }>
  calls: Set<string>
  answeredCalls: Set<string>
}

const knownMessages = (state: AgentState): Known => {
  const known: Known = { ids: new Map(), calls: new Set(), answeredCalls: new Set() }
  const add = (msg: Msg) => {
    if (msg.role !== 'assistant') {
      known.ids.set(msg.id, { role: msg.role, text: msg.content.map((b) => (b.type === 'text' ? b.text : '')).join('') })
      return
    }
    known.ids.set(msg.id, { role: 'assistant' })
    for (const block of msg.content) {
      if (block.type === 'text') known.ids.set(block.id, { role: 'assistant' })
      else if (block.type === 'thinking') known.ids.set(block.id, { role: 'reasoning' })
      else if (block.type === 'tool_call') {
        known.calls.add(block.id)
        known.ids.set(toolCallParentId(block.id), { role: 'assistant' })
      } else if (block.type === 'tool_result' && block.state !== 'running') {
        known.answeredCalls.add(block.id)
        known.ids.set(resultMessageId(block.id), { role: 'tool' })
      }
    }
  }
  for (const msg of state.context) add(msg)
  if (state.reply_msg) add(state.reply_msg)
  return known
}

export const isAnsweredCall = (state: AgentState, id: string): boolean => knownMessages(state).answeredCalls.has(id)

/** The text of a message's content (a string, or the text parts of a list). */
const userText = (m: AgUiMessage): string => {
  if (typeof m.content === 'string') return m.content
  if (!Array.isArray(m.content)) return ''
  const parts = m.content as { type?: unknown; text?: unknown }[]
  if (m.role === 'user' && parts.some((p) => p.type !== 'text'))
    refuse('INVALID_INPUT', `User message ${m.id} has non-text content parts; this server accepts text only.`)
  return parts.map((p) => (typeof p.text === 'string' ? p.text : '')).join('')
}
