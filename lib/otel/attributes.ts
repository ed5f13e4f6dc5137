// The attribute and event names of agentlog's spans: the OpenTelemetry GenAI semantic conventions
// (gen_ai.*) plus agentlog's own (agentlog.*: where in the log a span comes from, how it ended).
// Tool results are read from their TOOL_RESULT_* events (text deltas, data as its media type), never
// from a result block's `output`, whose shape changes between versions (a string, or blocks).
import type { Attributes } from '@opentelemetry/api'

export const GEN_AI = {
  operation: 'gen_ai.operation.name',
  provider: 'gen_ai.provider.name',
  agentName: 'gen_ai.agent.name',
  conversation: 'gen_ai.conversation.id',
  requestModel: 'gen_ai.request.model',
  finishReasons: 'gen_ai.response.finish_reasons',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  cacheReadTokens: 'gen_ai.usage.cache_read.input_tokens',
  cacheCreationTokens: 'gen_ai.usage.cache_creation.input_tokens',
  toolName: 'gen_ai.tool.name',
  toolCallId: 'gen_ai.tool.call.id',
  toolType: 'gen_ai.tool.type',
  toolArguments: 'gen_ai.tool.call.arguments',
  toolResult: 'gen_ai.tool.call.result',
  inputMessages: 'gen_ai.input.messages',
  outputMessages: 'gen_ai.output.messages',
  tokenType: 'gen_ai.token.type',
  errorType: 'error.type',
} as const

export const AGENTLOG = {
  session: 'agentlog.session_id',
  reply: 'agentlog.reply_id',
  seqStart: 'agentlog.seq.start',
  seqEnd: 'agentlog.seq.end',
  finishReason: 'agentlog.finish_reason',
  resultState: 'agentlog.tool.result_state',
  childSession: 'agentlog.child_session_id',
  segment: 'agentlog.reply.segment',
  paused: 'agentlog.paused',
  waitingFor: 'agentlog.waiting_for',
  waitedMs: 'agentlog.waited_ms',
  inProgress: 'agentlog.in_progress',
  recovered: 'agentlog.recovered',
  interruptSource: 'agentlog.interrupt.source',
  /** Span event names. */
  interruptEvent: 'agentlog.interrupt',
  deniedEvent: 'agentlog.denied',
  compactedEvent: 'agentlog.context_compacted',
} as const

/** Who stopped a reply: a cancel (an AbortSignal, leaving the loop, interrupt() while running, the server's Stop), USER_INTERRUPT while paused, or the close of a reply a crash cut. */
export type InterruptSource = 'signal' | 'user_interrupt' | 'crash_recovery'

export interface UsageFields {
  input_tokens: number
  output_tokens: number
  cache_input_tokens: number
  cache_creation_input_tokens: number
}

export const usageAttributes = (usage: UsageFields): Attributes => ({
  [GEN_AI.inputTokens]: usage.input_tokens,
  [GEN_AI.outputTokens]: usage.output_tokens,
  [GEN_AI.cacheReadTokens]: usage.cache_input_tokens,
  [GEN_AI.cacheCreationTokens]: usage.cache_creation_input_tokens,
})

/** The time of an event, in epoch milliseconds (the log's own timestamp). */
export const timeOf = (event: { created_at: string }): number => Date.parse(event.created_at)
