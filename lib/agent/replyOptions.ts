// What a caller passes one reply (ReplyOptions) and what a reply run needs of its agent (ReplyHost,
// structural, so the run imports no agent).
import type { z } from 'zod'
import type { AgentEvent } from '../core/events.js'
import type { TraceContext } from '../core/traceparent.js'
import type { CallerToolSpec } from './tools.js'

export interface ReplyOptions {
  /** Aborting it interrupts the reply; the stream then yields the closing events and ends. */
  signal?: AbortSignal
  /** Make `reply()` reject with an AbortError on an interrupted reply (after the cleanup) instead of resolving. */
  rejectOnInterrupt?: boolean
  /** A zod object schema the reply ends with a value of (see `Agent.reply`); overrides the agent's default. */
  output?: z.ZodType
  /**
   * Tools the caller executes, offered to the model from this reply on (replacing those of an earlier
   * reply); a call to one parks the reply with REQUIRE_EXTERNAL_EXECUTION. The agent's own tools win a name clash.
   */
  externalTools?: CallerToolSpec[]
  /** JSON recorded in the input event's `metadata` (a trace id, the id of the request it answers). */
  metadata?: Record<string, unknown>
  /** Yield the events of the agent's sub-agents too (agentTool), interleaved, each tagged with its `metadata.session_id`. */
  descendants?: boolean
  /** The W3C trace context the reply continues (a `traceparent` header), recorded on the input event as `metadata.trace_context`; agentlog/otel's spans hang under it. */
  traceContext?: TraceContext
  /**
   * A user message sent while the reply is paused: 'refuse' (default, REPLY_PAUSED), 'interrupt' (close
   * the pending calls as USER_INTERRUPT does, then start the message's reply before the queue), or
   * 'queue' (queue it). Either way the call resolves like reply() once the message's own reply ends.
   */
  whilePaused?: 'refuse' | 'interrupt' | 'queue'
}

/** What a reply run needs of its agent (an `Agent`; structural, so this module imports no agent). */
export interface ReplyHost {
  readonly name: string
  readonly interruptText: string
  readonly log: readonly AgentEvent[]
  /** The log commits after its append returns (a durable store): events are delivered once committed. */
  readonly commitsAfterAppend: boolean
  flush(): Promise<void>
  cancel(reply_id: string): void
  interrupt(): Promise<unknown>
}
