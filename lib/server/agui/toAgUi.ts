// Our reply's events as one AG-UI run: a small state machine fed the output events of one HTTP run
// (a new reply, or a resumed one) that tracks what is open, so that however the run ends it can
// close every message, reasoning span, tool call and step before RUN_FINISHED or RUN_ERROR.
// Tool results are gathered and sent as one TOOL_CALL_RESULT at their end. No I/O, no clock.
// Sub-agents (a run streamed with their events, each tagged `metadata.session_id`): their progress is
// already the agent tool's result stream, so their own events only tell which of their calls ask
// for confirmation; when the reply parks on its sub-agent calls, those are the run's interrupts.
import type { OutputEvent } from '../../core/events.js'
import type { ToolCallBlock } from '../../core/messages.js'
import type { AgUiContentPart, AgUiEvent, AgUiInterrupt } from './types.js'

export interface AgUiRunOptions {
  threadId: string
  runId: string
  /** The reply this run resumes (a resumed reply yields no REPLY_START). */
  reply_id?: string
  /** Calls whose results the front end sent itself: no TOOL_CALL_RESULT is echoed for them. */
  externalCallIds?: readonly string[]
  /** The text a resumed reply's unfinished results streamed before this run (a parked sub-agent's call), by call id. */
  partialResults?: Readonly<Record<string, string>>
}

/** The AG-UI message id of a tool call's result (our result block shares the call's id). */
export const resultMessageId = (tool_call_id: string): string => `${tool_call_id}.result`

/** The AG-UI message id that carries the tool calls of a round without text before them. */
export const toolCallParentId = (first_call_id: string): string => `${first_call_id}.calls`

interface PendingResult { text: string; parts: AgUiContentPart[] }

export interface AgUiRun {
  /** RUN_STARTED for the run (once). */
  start(): AgUiEvent[]
  /** The AG-UI events of one of the reply's events. */
  map(event: OutputEvent): AgUiEvent[]
  /** Ends the run after the last event (REPLY_END or a pause): open items closed, then the outcome. */
  finish(): AgUiEvent[]
  /** Ends the run with RUN_ERROR (open items closed first). */
  fail(code: string, message: string): AgUiEvent[]
  readonly ended: boolean
}

export const createAgUiRun = ({ threadId, runId, reply_id, externalCallIds = [], partialResults = {} }: AgUiRunOptions): AgUiRun => {
  let started = false
  let ended = false
  let last: OutputEvent | null = null
  let step: string | null = null
  /** The assistant message new tool calls attach to (the latest text of the round, or the round's first call). */
  let parentId: string | null = null
  const openText = new Set<string>()
  const openReasoning = new Set<string>()
  const openCalls = new Set<string>()
  const results = new Map<string, PendingResult>(Object.entries(partialResults).map(([id, text]) => [id, { text, parts: [] }]))
  const external = new Set(externalCallIds)
  const usage = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 }

  /** The calls each sub-agent session waits on (asking, or external: not its own sub-agents' calls), while they wait. */
  const descendantAsks = new Map<string, { reply_id: string; calls: ToolCallBlock[] }>()
  const trackDescendant = (session_id: string, event: OutputEvent) => {
    const type: string = event.type
    const waits = descendantAsks.get(session_id)?.calls ?? []
    const keep = (calls: ToolCallBlock[]) => (calls.length ? descendantAsks.set(session_id, { reply_id: event.reply_id, calls }) : descendantAsks.delete(session_id))
    if (event.type === 'REQUIRE_USER_CONFIRM') keep([...waits, ...event.tool_calls])
    else if (event.type === 'REQUIRE_EXTERNAL_EXECUTION' && typeof event.metadata.child_session_id !== 'string') keep([...waits, ...event.tool_calls])
    else if (type === 'USER_CONFIRM_RESULT') keep(waits.filter((c) => c.state !== 'asking'))
    else if (type === 'EXTERNAL_EXECUTION_RESULT') keep(waits.filter((c) => c.state === 'asking'))
    else if (type === 'REPLY_START' || type === 'REPLY_END') descendantAsks.delete(session_id)
  }

  const start = (metadata?: Record<string, unknown>): AgUiEvent[] => {
    if (started) return []
    started = true
    return [{ type: 'RUN_STARTED', threadId, runId, ...(metadata ? { metadata } : {}) }]
  }

  const closeOpen = (): AgUiEvent[] => {
    const out: AgUiEvent[] = []
    for (const messageId of openText) out.push({ type: 'TEXT_MESSAGE_END', messageId })
    for (const messageId of openReasoning) out.push({ type: 'REASONING_MESSAGE_END', messageId }, { type: 'REASONING_END', messageId })
    for (const toolCallId of openCalls) out.push({ type: 'TOOL_CALL_END', toolCallId })
    if (step !== null) out.push({ type: 'STEP_FINISHED', stepName: step })
    openText.clear(); openReasoning.clear(); openCalls.clear(); step = null
    return out
  }

  const resultEvent = (toolCallId: string, pending: PendingResult): AgUiEvent => ({
    type: 'TOOL_CALL_RESULT', messageId: resultMessageId(toolCallId), toolCallId, role: 'tool',
    content: pending.parts.length ? [...(pending.text ? [{ type: 'text', text: pending.text }] : []), ...pending.parts] : pending.text,
  })

  const map = (event: OutputEvent): AgUiEvent[] => {
    if (ended) return []
    const session_id = event.metadata?.session_id
    if (typeof session_id === 'string' && session_id !== threadId) {
      trackDescendant(session_id, event)
      return []
    }
    last = event
    const out = started ? [] : start(reply_id ? { reply_id } : { reply_id: event.reply_id })
    switch (event.type) {
      case 'MODEL_CALL_START':
        step = `model_call:${event.model_name}`
        parentId = null
        out.push({ type: 'STEP_STARTED', stepName: step })
        break
      case 'MODEL_CALL_END':
        usage.inputTokens += event.input_tokens
        usage.outputTokens += event.output_tokens
        usage.cachedInputTokens += event.cache_input_tokens
        if (step !== null) out.push({ type: 'STEP_FINISHED', stepName: step })
        step = null
        break
      case 'TEXT_BLOCK_START':
        openText.add(event.block_id)
        parentId = event.block_id
        out.push({ type: 'TEXT_MESSAGE_START', messageId: event.block_id, role: 'assistant' })
        break
      case 'TEXT_BLOCK_DELTA':
        if (openText.has(event.block_id) && event.delta) out.push({ type: 'TEXT_MESSAGE_CONTENT', messageId: event.block_id, delta: event.delta })
        break
      case 'TEXT_BLOCK_END':
        if (openText.delete(event.block_id)) out.push({ type: 'TEXT_MESSAGE_END', messageId: event.block_id })
        break
      case 'THINKING_BLOCK_START':
        openReasoning.add(event.block_id)
        out.push({ type: 'REASONING_START', messageId: event.block_id }, { type: 'REASONING_MESSAGE_START', messageId: event.block_id, role: 'reasoning' })
        break
      case 'THINKING_BLOCK_DELTA':
        if (openReasoning.has(event.block_id) && event.delta) out.push({ type: 'REASONING_MESSAGE_CONTENT', messageId: event.block_id, delta: event.delta })
        break
      case 'THINKING_BLOCK_END':
        if (openReasoning.delete(event.block_id)) out.push({ type: 'REASONING_MESSAGE_END', messageId: event.block_id }, { type: 'REASONING_END', messageId: event.block_id })
        break
      case 'TOOL_CALL_START':
        parentId ??= toolCallParentId(event.tool_call_id)
        openCalls.add(event.tool_call_id)
        out.push({ type: 'TOOL_CALL_START', toolCallId: event.tool_call_id, toolCallName: event.tool_call_name, parentMessageId: parentId })
        break
      case 'TOOL_CALL_DELTA':
        if (openCalls.has(event.tool_call_id) && event.delta) out.push({ type: 'TOOL_CALL_ARGS', toolCallId: event.tool_call_id, delta: event.delta })
        break
      case 'TOOL_CALL_END':
        if (openCalls.delete(event.tool_call_id)) out.push({ type: 'TOOL_CALL_END', toolCallId: event.tool_call_id })
        break
      case 'TOOL_RESULT_START':
        results.set(event.tool_call_id, { text: '', parts: [] })
        break
      case 'TOOL_RESULT_TEXT_DELTA':
        pendingResult(event.tool_call_id).text += event.delta
        break
      case 'TOOL_RESULT_DATA_DELTA':
        pendingResult(event.tool_call_id).parts.push({
          type: partType(event.media_type),
          source: event.data !== null ? { type: 'data', value: event.data, mimeType: event.media_type } : { type: 'url', value: event.url ?? '', mimeType: event.media_type },
        })
        break
      case 'TOOL_RESULT_END': {
        const pending = pendingResult(event.tool_call_id)
        results.delete(event.tool_call_id)
        if (!external.has(event.tool_call_id)) out.push(resultEvent(event.tool_call_id, pending))
        break
      }
      default:
        break
    }
    return out
  }

  const pendingResult = (id: string): PendingResult => {
    let pending = results.get(id)
    if (!pending) results.set(id, (pending = { text: '', parts: [] }))
    return pending
  }

  const usageField = (): Record<string, unknown> =>
    usage.inputTokens || usage.outputTokens
      ? { usage: [{ inputTokens: usage.inputTokens, outputTokens: usage.outputTokens, totalTokens: usage.inputTokens + usage.outputTokens, cachedInputTokens: usage.cachedInputTokens }] }
      : {}

  const finish = (): AgUiEvent[] => {
    if (ended) return []
    const out = [...start(reply_id ? { reply_id } : undefined), ...closeOpen()]
    ended = true
    const finished = (outcome?: Record<string, unknown>): AgUiEvent => ({ type: 'RUN_FINISHED', threadId, runId, ...(outcome ? { outcome } : {}), ...usageField() })
    if (last?.type === 'REQUIRE_USER_CONFIRM') {
      const interrupts: AgUiInterrupt[] = last.tool_calls.map((call) => ({
        id: call.id, reason: 'tool_call', toolCallId: call.id,
        message: `Allow ${call.name} with ${call.input}?`, responseSchema: APPROVAL_SCHEMA,
      }))
      out.push(finished({ type: 'interrupt', interrupts }))
    } else if (last?.type === 'REQUIRE_EXTERNAL_EXECUTION' && descendantAsks.size) {
      out.push(finished({ type: 'interrupt', interrupts: descendantInterrupts([...descendantAsks].map(([session_id, asks]) => ({ session_id, ...asks }))) }))
    } else if (last?.type === 'REQUIRE_EXTERNAL_EXECUTION') {
      out.push(finished({ type: 'success', pendingToolCallIds: last.tool_calls.map((c) => c.id) }))
    } else if (last?.type === 'REPLY_END' && (last.finished_reason === 'error' || last.finished_reason === 'exceed_max_iters')) {
      const message = last.error?.message ?? 'The reply reached its maximum number of iterations.'
      out.push({ type: 'RUN_ERROR', message, code: last.finished_reason === 'error' ? `model_${last.error?.type ?? 'unknown'}` : 'exceed_max_iters', ...usageField() })
    } else if (last?.type === 'REPLY_END' && last.finished_reason === 'interrupted') {
      out.push(finished({ type: 'cancelled' }))
    } else {
      out.push(finished())
    }
    return out
  }

  const fail = (code: string, message: string): AgUiEvent[] => {
    if (ended) return []
    ended = true
    return [...(started ? closeOpen() : []), { type: 'RUN_ERROR', message, code }]
  }

  return { start: () => start(reply_id ? { reply_id } : undefined), map, finish, fail, get ended() { return ended } }
}

/**
 * The id of the interrupt of a sub-agent's call: its session and call (`session/call`; session ids
 * hold no "/"), so two sub-agents both waiting on `call_0` are two interrupts. The root's own calls'
 * interrupts are their call ids.
 */
export const interruptId = (session_id: string, call_id: string): string => (session_id ? `${session_id}/${call_id}` : call_id)

/** The session and call an interrupt id names (the session '' for the root's own). */
export const interruptCall = (id: string): { session_id: string; call_id: string } => {
  const at = id.indexOf('/')
  return at < 0 ? { session_id: '', call_id: id } : { session_id: id.slice(0, at), call_id: id.slice(at + 1) }
}

/** The calls a sub-agent session waits on to be confirmed. */
export interface DescendantAsks {
  session_id: string
  reply_id: string
  calls: readonly ToolCallBlock[]
}

/**
 * A sub-agent's waiting calls as interrupts, named with their session: an asking call is answered
 * like the root's own (`{approved, editedArgs?}`), an external one with its result (`{output, error?}`).
 */
export const descendantInterrupts = (asks: readonly DescendantAsks[]): AgUiInterrupt[] =>
  asks.flatMap(({ session_id, calls }) => calls.map((call): AgUiInterrupt => call.state === 'asking'
    ? {
        id: interruptId(session_id, call.id), reason: 'tool_call', toolCallId: call.id,
        message: `Allow ${call.name} with ${call.input}? (asked by the sub-agent of session ${session_id})`,
        responseSchema: APPROVAL_SCHEMA, metadata: { session_id },
      }
    : {
        id: interruptId(session_id, call.id), reason: 'input_required', toolCallId: call.id,
        message: `The result of ${call.name} with ${call.input}, for the sub-agent of session ${session_id}`,
        responseSchema: RESULT_SCHEMA, metadata: { session_id },
      }))

const partType = (mediaType: string): 'image' | 'audio' | 'video' | 'document' =>
  mediaType.startsWith('image/') ? 'image' : mediaType.startsWith('audio/') ? 'audio' : mediaType.startsWith('video/') ? 'video' : 'document'

/** What a resume payload of an external call's result looks like (`error: true`: the call failed, `output` says why). */
export const RESULT_SCHEMA: Record<string, unknown> = {
  type: 'object',
  properties: { output: { type: 'string' }, error: { type: 'boolean' } },
  required: ['output'],
}

/** What a resume payload of an approval looks like. */
export const APPROVAL_SCHEMA: Record<string, unknown> = {
  type: 'object',
  properties: { approved: { type: 'boolean' }, editedArgs: { type: 'object' } },
  required: ['approved'],
}
