// What the span builders share: the tracer, the content opt-in, and an observer the metrics use
// (traceLog has none; instrument() records the metrics from the same spans it ends).
import type { Tracer } from '@opentelemetry/api'
import type { InterruptSource, UsageFields } from './attributes.js'
import type { ReplyFinishedReason } from '../core/messages.js'

/** How many characters of one recorded text a span keeps by default (a span's attributes are held in memory until exported, and collectors refuse huge ones). */
export const DEFAULT_MAX_CONTENT_LENGTH = 4096

export interface TraceOptions {
  /** Record message texts, tool arguments and results on the spans (the conventions' opt-in; default false). Credentials are never recorded. */
  captureContent?: boolean
  /** With captureContent: each recorded text (the input, the answer, a tool's arguments or result) is cut to this many characters, and says so (default 4096, DEFAULT_MAX_CONTENT_LENGTH). */
  maxContentLength?: number
  /** `gen_ai.provider.name` of the chat spans ('openai', 'anthropic', ...): the log does not record the provider. */
  providerName?: string
}

export interface ChatEnded {
  model: string
  usage: UsageFields
  durationMs: number
  /** The error type of a model call that failed, or null. */
  error: string | null
  agent: string
}

export interface TraceObserver {
  chatEnded?(chat: ChatEnded): void
  replyEnded?(reason: ReplyFinishedReason, agent: string): void
  interrupted?(source: InterruptSource, agent: string): void
}

export interface TraceSettings extends TraceOptions {
  tracer: Tracer
  observer?: TraceObserver
}
