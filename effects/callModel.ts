// callModel: one model call as an Observable of events.
// Emits: MODEL_CALL_START at once (the claim), then TEXT/THINKING block groups and TOOL_CALL groups
// as chunks stream in (one group at a time: a new block or call ends the open one), MODEL_CALL_USAGE whenever usage is reported, then MODEL_CALL_END(completed).
// A failure closes the reply through the pure interrupt function, as REPLY_END(error).
// Cancelled by: unsubscribing (the reply's cancel$, via advanceReply), which aborts the model's
// AbortSignal: the HTTP request and the body read stop at once.
import type { Observable } from 'rxjs'
import { createEvent } from '../lib/clock.js'
import { ModelError } from '../lib/errors.js'
import type { AgentEvent } from '../lib/events.js'
import type { ErrorInfo, Msg } from '../lib/messages.js'
import type { ModelChunk, ModelRequest } from '../lib/model.js'
import type { StateObservable } from '../lib/store.js'
import { closeReply } from '../reducers/interrupt.js'
import { selectConversation } from '../reducers/selectors.js'
import { abortable } from './abortable.js'
import type { AgentDeps } from './deps.js'

export const callModel = (state$: StateObservable, deps: AgentDeps, tool_choice: 'auto' | 'none'): Observable<AgentEvent> =>
  abortable<AgentEvent>(async (signal, subscriber) => {
    const { clock, model } = deps
    const reply_id = state$.value.reply_id!
    const request = buildRequest(state$.value.reply_msg!, selectConversation(state$.value), deps, tool_choice)
    const emit = (event: AgentEvent) => subscriber.next(event)
    emit(createEvent(clock, 'MODEL_CALL_START', { reply_id, model_name: model.name }))

    let open: { type: 'text' | 'thinking'; id: string; signature?: string } | null = null
    let openCall: string | null = null
    const calls = new Set<string>()
    let usage = { input_tokens: 0, output_tokens: 0, cache_input_tokens: 0, cache_creation_input_tokens: 0 }
    const closeOpenBlock = () => {
      if (openCall !== null) emit(createEvent(clock, 'TOOL_CALL_END', { reply_id, tool_call_id: openCall }))
      openCall = null
      if (!open) return
      const metadata = open.signature !== undefined ? { signature: open.signature } : {}
      emit(createEvent(clock, open.type === 'text' ? 'TEXT_BLOCK_END' : 'THINKING_BLOCK_END', { reply_id, block_id: open.id, metadata }))
      open = null
    }
    const onChunk = (chunk: ModelChunk) => {
      switch (chunk.type) {
        case 'text':
        case 'thinking': {
          if (open?.type !== chunk.type) {
            closeOpenBlock()
            open = { type: chunk.type, id: clock.id() }
            emit(createEvent(clock, chunk.type === 'text' ? 'TEXT_BLOCK_START' : 'THINKING_BLOCK_START', { reply_id, block_id: open.id }))
          }
          // The hot path: one event per streamed delta, written out as a literal. Its metadata has
          // the one key the store writes (`seq`) from the start: a 32-byte object, not an empty
          // literal's 56, in a log that keeps every delta.
          emit({ id: clock.id(), created_at: clock.now(), metadata: { seq: 0 }, type: chunk.type === 'text' ? 'TEXT_BLOCK_DELTA' : 'THINKING_BLOCK_DELTA', reply_id, block_id: open.id, delta: chunk.delta })
          return
        }
        case 'thinking_signature':
          if (open?.type === 'thinking') open.signature = (open.signature ?? '') + chunk.signature
          return
        case 'tool_call':
          if (!calls.has(chunk.id)) {
            closeOpenBlock()
            calls.add(chunk.id)
            openCall = chunk.id
            emit(createEvent(clock, 'TOOL_CALL_START', { reply_id, tool_call_id: chunk.id, tool_call_name: chunk.name }))
          }
          if (chunk.delta) emit(createEvent(clock, 'TOOL_CALL_DELTA', { reply_id, tool_call_id: chunk.id, delta: chunk.delta }))
          return
        case 'usage':
          usage = {
            input_tokens: chunk.input_tokens, output_tokens: chunk.output_tokens,
            cache_input_tokens: chunk.cache_input_tokens ?? 0, cache_creation_input_tokens: chunk.cache_creation_input_tokens ?? 0,
          }
          emit(createEvent(clock, 'MODEL_CALL_USAGE', { reply_id, ...usage }))
      }
    }

    for await (const chunk of model.stream(request, { signal })) {
      if (subscriber.closed) return
      onChunk(chunk)
    }
    if (subscriber.closed) return
    closeOpenBlock()
    emit(createEvent(clock, 'MODEL_CALL_END', { reply_id, ...usage, finished_reason: 'completed' }))
  }, (error, subscriber) => {
    for (const event of closeReply(state$.value, deps.clock, { reason: 'error', error: errorInfo(error) })) subscriber.next(event)
  })

export const errorInfo = (error: unknown): ErrorInfo =>
  error instanceof ModelError ? { type: error.type, message: error.message }
    : { type: 'unknown', message: error instanceof Error ? error.message : String(error) }

const buildRequest = (replyMsg: Msg, conversation: Msg[], deps: AgentDeps, tool_choice: 'auto' | 'none'): ModelRequest => ({
  messages: [systemMsg(deps.sysPrompt, replyMsg.created_at), ...conversation],
  tools: [...deps.tools.values()].map((tool) => tool.spec),
  tool_choice,
})

const systemMsg = (text: string, created_at: string): Msg => ({
  id: 'system', name: 'system', role: 'system', metadata: {}, created_at,
  content: [{ type: 'text', id: 'system-prompt', text, created_at, finished_at: created_at }],
  usage: null, finished_at: created_at, finished_reason: null, structured_output: null, error: null,
})
