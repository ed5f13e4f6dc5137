// callModel: one model call as an Observable of events.
// Emits: MODEL_CALL_START at once (the claim), then TEXT/THINKING block groups, TOOL_CALL groups and
// DATA block groups (an image the model returns) as chunks stream in (a new text/thinking block or
// call ends the open text block; a data chunk leaves it open, as AgentScope; tool calls and data
// blocks stay open until the model call ends, since fragments of several calls may alternate),
// MODEL_CALL_USAGE whenever usage is reported, then MODEL_CALL_END(completed). Chunks are checked (modelOutput.ts). A failure
// (malformed output, any thrown value) closes the reply through the pure interrupt function, as REPLY_END(error).
// Cancelled by: unsubscribing (the reply's cancel$, via advanceReply), which aborts the model's
// AbortSignal: the HTTP request and the body read stop at once.
import type { Observable } from 'rxjs'
import { createEvent } from '../lib/core/clock.js'
import { describe, messageOf, ModelError } from '../lib/core/errors.js'
import type { z } from 'zod'
import { ModelCallUsageEventSchema, ToolCallStartEventSchema, type AgentEvent } from '../lib/core/events.js'
import type { ErrorInfo, Msg } from '../lib/core/messages.js'
import type { ModelChunk, ModelRequest, ToolChoice } from '../lib/models/model.js'
import type { StateObservable } from '../lib/core/store.js'
import { closeReply } from '../reducers/interrupt.js'
import { selectConversation } from '../reducers/selectors.js'
import { abortable } from './abortable.js'
import type { AgentDeps } from './deps.js'
import { checkData, checkUsage, chunkType, malformed, ToolCalls, usedCallIds } from './modelOutput.js'
import { redactSecrets } from '../lib/core/redact.js'

export const callModel = (state$: StateObservable, deps: AgentDeps, tool_choice: ToolChoice): Observable<AgentEvent> =>
  abortable<AgentEvent>(async (signal, subscriber) => {
    const { clock, model } = deps
    const reply_id = state$.value.reply_id!
    const request = buildRequest(state$.value.reply_msg!, selectConversation(state$.value), deps, tool_choice)
    const emit = (event: AgentEvent) => subscriber.next(event)
    emit(createEvent(clock, 'MODEL_CALL_START', { reply_id, model_name: model.name }))

    let open: { type: 'text' | 'thinking'; id: string; signature?: string } | null = null
    const calls = new ToolCalls(clock, usedCallIds(deps, state$.value.reply_msg!))
    /** The model's data block id -> the block id in the log, in order. */
    const data = new Map<string, string>()
    let usage = { input_tokens: 0, output_tokens: 0, cache_input_tokens: 0, cache_creation_input_tokens: 0 }
    const closeOpenBlock = () => {
      if (!open) return
      const metadata = open.signature !== undefined ? { signature: open.signature } : {}
      emit(createEvent(clock, open.type === 'text' ? 'TEXT_BLOCK_END' : 'THINKING_BLOCK_END', { reply_id, block_id: open.id, metadata }))
      open = null
    }
    const onChunk = (chunk: ModelChunk) => {
      // The hot path: a text or thinking delta that continues the open block, as one literal event.
      if (open !== null && chunk?.type === open.type && typeof (chunk as { delta?: unknown }).delta === 'string') {
        emit({ id: clock.id(), created_at: clock.now(), metadata: { seq: 0 }, type: open.type === 'text' ? 'TEXT_BLOCK_DELTA' : 'THINKING_BLOCK_DELTA', reply_id, block_id: open.id, delta: (chunk as { delta: string }).delta })
        return
      }
      switch (chunkType(chunk)) {
        case 'text':
        case 'thinking': {
          const { type, delta } = chunk as Extract<ModelChunk, { type: 'text' | 'thinking' }>
          if (typeof delta !== 'string') throw malformed(`a ${type} chunk whose delta is ${describe(delta)}, not a string`)
          if (open?.type !== type) {
            closeOpenBlock()
            open = { type, id: clock.id() }
            emit(createEvent(clock, type === 'text' ? 'TEXT_BLOCK_START' : 'THINKING_BLOCK_START', { reply_id, block_id: open.id }))
          }
          // One event per streamed delta, written out as a literal. Its metadata has the one key the
          // store writes (`seq`) from the start: a 32-byte object, not an empty literal's 56, in a log
          // that keeps every delta.
          emit({ id: clock.id(), created_at: clock.now(), metadata: { seq: 0 }, type: type === 'text' ? 'TEXT_BLOCK_DELTA' : 'THINKING_BLOCK_DELTA', reply_id, block_id: open.id, delta })
          return
        }
        case 'thinking_signature': {
          const { signature } = chunk as Extract<ModelChunk, { type: 'thinking_signature' }>
          if (typeof signature !== 'string') throw malformed(`a thinking signature that is ${describe(signature)}, not a string`)
          if (open?.type === 'thinking') open.signature = (open.signature ?? '') + signature
          return
        }
        case 'tool_call': {
          const call = calls.route(chunk as Extract<ModelChunk, { type: 'tool_call' }>)
          if (call.isNew) {
            closeOpenBlock()
            emit(checked(ToolCallStartEventSchema, createEvent(clock, 'TOOL_CALL_START', { reply_id, tool_call_id: call.id, tool_call_name: call.name })))
          }
          if (call.delta) emit(createEvent(clock, 'TOOL_CALL_DELTA', { reply_id, tool_call_id: call.id, delta: call.delta }))
          return
        }
        case 'data': {
          const { id, media_type, data: delta } = checkData(chunk as Extract<ModelChunk, { type: 'data' }>)
          let block_id = id === undefined ? undefined : data.get(id)
          if (block_id === undefined) {
            block_id = clock.id()
            data.set(id ?? block_id, block_id)
            emit(createEvent(clock, 'DATA_BLOCK_START', { reply_id, block_id, media_type }))
          }
          emit(createEvent(clock, 'DATA_BLOCK_DELTA', { reply_id, block_id, data: delta, media_type }))
          return
        }
        case 'usage':
          usage = checkUsage(chunk as Extract<ModelChunk, { type: 'usage' }>)
          emit(checked(ModelCallUsageEventSchema, createEvent(clock, 'MODEL_CALL_USAGE', { reply_id, ...usage })))
      }
    }

    // Another process may own the log now (this one paused past its lease): then no model call starts here (the log's failure ends the reply).
    const proof = deps.confirm?.()
    if (proof) {
      if (!(await proof.then(() => true, () => false)) || subscriber.closed) return
    }
    for await (const chunk of model.stream(request, { signal })) {
      if (subscriber.closed) return
      onChunk(chunk)
    }
    if (subscriber.closed) return
    closeOpenBlock()
    // Every call stays open until the model call ends: a fragment may come for any of them.
    for (const tool_call_id of calls.opened) emit(createEvent(clock, 'TOOL_CALL_END', { reply_id, tool_call_id }))
    for (const block_id of data.values()) emit(createEvent(clock, 'DATA_BLOCK_END', { reply_id, block_id }))
    emit(createEvent(clock, 'MODEL_CALL_END', { reply_id, ...usage, finished_reason: 'completed' }))
  }, (error, subscriber) => {
    for (const event of closeReply(state$.value, deps.clock, { reason: 'error', error: errorInfo(error) })) subscriber.next(event)
  })

/** The zod check of a rarer event built from model output (the deltas get a cheap typeof check instead). */
const checked = (schema: z.ZodType, event: AgentEvent): AgentEvent => {
  const parsed = schema.safeParse(event)
  if (parsed.success) return event
  const issue = parsed.error.issues[0]
  throw malformed(`it would make an invalid ${event.type} event (${issue.path.join('.')}: ${issue.message})`)
}

/** A failure as the log records it: any thrown value, with credentials redacted from its message. */
export const errorInfo = (error: unknown): ErrorInfo => {
  let modelError = false
  try {
    modelError = error instanceof ModelError
  } catch {
    // A thrown Proxy whose prototype trap throws: not a ModelError.
  }
  return modelError ? { type: (error as ModelError).type, message: redactSecrets((error as ModelError).message) }
    : { type: 'unknown', message: redactSecrets(messageOf(error)) }
}

const buildRequest = (replyMsg: Msg, conversation: Msg[], deps: AgentDeps, tool_choice: ToolChoice): ModelRequest => ({
  messages: [systemMsg(deps.sysPrompt, replyMsg.created_at), ...conversation],
  tools: [...deps.tools.values()].map((tool) => tool.spec),
  tool_choice,
})

export const systemMsg = (text: string, created_at: string): Msg => ({
  id: 'system', name: 'system', role: 'system', metadata: {}, created_at,
  content: [{ type: 'text', id: 'system-prompt', text, created_at, finished_at: created_at }],
  usage: null, finished_at: created_at, finished_reason: null, structured_output: null, error: null,
})
