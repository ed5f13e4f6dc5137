// Events: every AgentScope event (REFERENCE.md section 2) and agentlog's own log events, as strict
// zod schemas joined in one discriminated union. Types come from z.infer; `EventOf<'REPLY_END'>`
// narrows by type. Schemas have no transforms, so parsing returns an event unchanged.
import { z } from 'zod'
import {
  ErrorInfoSchema, HintBlockSchema, MsgSchema, PermissionRuleSchema, ReplyFinishedReasonSchema,
  TextBlockSchema, DataBlockSchema, ToolCallBlockSchema, ToolResultBlockSchema, ToolResultStateSchema,
} from './messages.js'

const base = {
  id: z.string().min(1),
  created_at: z.string(),
  metadata: z.record(z.string(), z.unknown()),
}
const event = <T extends string, S extends z.ZodRawShape>(type: T, shape: S) =>
  z.strictObject({ ...base, type: z.literal(type), ...shape })

const reply = { reply_id: z.string().min(1) }
const block = { reply_id: z.string().min(1), block_id: z.string().min(1) }
const call = { reply_id: z.string().min(1), tool_call_id: z.string().min(1) }
const usage = {
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  cache_input_tokens: z.number().int(),
  cache_creation_input_tokens: z.number().int(),
}

// Output events: what a reply yields.
export const ReplyStartEventSchema = event('REPLY_START', {
  session_id: z.string(), reply_id: z.string().min(1), name: z.string(), role: z.literal('assistant'),
})
export const ReplyEndEventSchema = event('REPLY_END', {
  session_id: z.string(), reply_id: z.string().min(1),
  finished_reason: ReplyFinishedReasonSchema, error: ErrorInfoSchema.nullable(),
})
export const ModelCallStartEventSchema = event('MODEL_CALL_START', { ...reply, model_name: z.string() })
export const ModelCallEndEventSchema = event('MODEL_CALL_END', {
  ...reply, ...usage, finished_reason: z.enum(['completed', 'interrupted']),
})
export const TextBlockStartEventSchema = event('TEXT_BLOCK_START', block)
export const TextBlockDeltaEventSchema = event('TEXT_BLOCK_DELTA', { ...block, delta: z.string() })
export const TextBlockEndEventSchema = event('TEXT_BLOCK_END', block)
export const ThinkingBlockStartEventSchema = event('THINKING_BLOCK_START', block)
export const ThinkingBlockDeltaEventSchema = event('THINKING_BLOCK_DELTA', { ...block, delta: z.string() })
export const ThinkingBlockEndEventSchema = event('THINKING_BLOCK_END', block)
export const DataBlockStartEventSchema = event('DATA_BLOCK_START', { ...block, media_type: z.string() })
export const DataBlockDeltaEventSchema = event('DATA_BLOCK_DELTA', { ...block, data: z.string(), media_type: z.string() })
export const DataBlockEndEventSchema = event('DATA_BLOCK_END', block)
export const HintBlockEventSchema = event('HINT_BLOCK', {
  ...block, hint: HintBlockSchema.shape.hint, source: z.string().nullable(),
})
export const ToolCallStartEventSchema = event('TOOL_CALL_START', { ...call, tool_call_name: z.string() })
export const ToolCallDeltaEventSchema = event('TOOL_CALL_DELTA', { ...call, delta: z.string() })
export const ToolCallEndEventSchema = event('TOOL_CALL_END', call)
export const ToolResultStartEventSchema = event('TOOL_RESULT_START', { ...call, tool_call_name: z.string() })
export const ToolResultTextDeltaEventSchema = event('TOOL_RESULT_TEXT_DELTA', { ...call, delta: z.string() })
export const ToolResultDataDeltaEventSchema = event('TOOL_RESULT_DATA_DELTA', {
  ...call, block_id: z.string().min(1), media_type: z.string(),
  data: z.string().nullable(), url: z.string().nullable(),
})
export const ToolResultEndEventSchema = event('TOOL_RESULT_END', { ...call, state: ToolResultStateSchema })
export const RequireUserConfirmEventSchema = event('REQUIRE_USER_CONFIRM', { ...reply, tool_calls: z.array(ToolCallBlockSchema) })
export const RequireExternalExecutionEventSchema = event('REQUIRE_EXTERNAL_EXECUTION', { ...reply, tool_calls: z.array(ToolCallBlockSchema) })
/** Deprecated in AgentScope (REPLY_END's `finished_reason` says it), still sent right before REPLY_END(exceed_max_iters). */
export const ExceedMaxItersEventSchema = event('EXCEED_MAX_ITERS', { ...reply, name: z.string() })

// Input events: what a caller sends besides a new user message.
export const ConfirmResultSchema = z.strictObject({
  confirmed: z.boolean(),
  tool_call: ToolCallBlockSchema,
  rules: z.array(PermissionRuleSchema).nullable(),
})
export const UserConfirmResultEventSchema = event('USER_CONFIRM_RESULT', { ...reply, confirm_results: z.array(ConfirmResultSchema).min(1) })
export const ExternalExecutionResultEventSchema = event('EXTERNAL_EXECUTION_RESULT', {
  ...reply, execution_results: z.array(ToolResultBlockSchema).min(1),
})
export const UserInterruptEventSchema = event('USER_INTERRUPT', reply)
export const CustomEventSchema = event('CUSTOM', { name: z.string(), value: z.record(z.string(), z.unknown()) })

// agentlog's own log events: they are in the log and on `events$`, never yielded by a reply.
export const UserMessageEventSchema = event('USER_MESSAGE', { msg: MsgSchema })
export const InterruptRequestedEventSchema = event('INTERRUPT_REQUESTED', reply)
export const ModelCallUsageEventSchema = event('MODEL_CALL_USAGE', { ...reply, ...usage })
/** A hint block the agent adds to the reply for the model without streaming it (the structured-output reminder): in the context, not yielded. */
export const HintAddedEventSchema = event('HINT_ADDED', { ...block, hint: HintBlockSchema.shape.hint, source: z.string().nullable() })
/** The calls of a batch the agent is about to run, announced when an ask or a submission of the batch comes first: the reply is not parked until they started. */
export const RunsDecidedEventSchema = event('RUNS_DECIDED', { ...reply, tool_call_ids: z.array(z.string().min(1)).min(1) })
/**
 * A local tool's `execute` is called (after its TOOL_RESULT_START): its result's output is a list of blocks, as AgentScope's.
 * The interrupt also records it, with `metadata.not_run: true`, for a call whose turn had come when the Stop came (nothing ran).
 */
export const ToolStartedEventSchema = event('TOOL_STARTED', call)
/** The context was compacted during a reply: `summary` stands in for the history up to `covers`, with the summarizing call's usage. */
export const ContextCompactedEventSchema = event('CONTEXT_COMPACTED', {
  ...reply, summary: z.string().min(1), model_name: z.string(),
  covers: z.strictObject({ messages: z.number().int().min(0), blocks: z.number().int().min(0) }),
  ...usage,
})

// Talking to a running agent (issue 30): messages that wait for a reply, and the stops a person makes.
/** A message for the running reply: it joins at the next step boundary (STEER_JOINED), or is queued when the reply ends first. */
export const MessageSteeredEventSchema = event('MESSAGE_STEERED', { ...reply, msg: MsgSchema })
/** The waiting steers join the reply's context before its next model call; the blocks after them go in the message `continuation_id`. */
export const SteerJoinedEventSchema = event('STEER_JOINED', { ...reply, msg_ids: z.array(z.string().min(1)).min(1), continuation_id: z.string().min(1) })
/** A message that starts a reply once the one in progress ends (`first`: ahead of the others). */
export const MessageQueuedEventSchema = event('MESSAGE_QUEUED', { msg: MsgSchema, first: z.boolean() })
/** A queued message taken back by the user before it started. */
export const MessageUnqueuedEventSchema = event('MESSAGE_UNQUEUED', { msg_id: z.string().min(1) })
/** A waiting message (state.queue, state.steers): its id (the message's), the message, when it was acknowledged. */
export const QueueEntrySchema = z.strictObject({ id: z.string().min(1), msg: MsgSchema, queued_at: z.string() })
/** A person's Stop hands the waiting messages back (queued and not joined steers): recorded, not started; the entries say what the Stop resolves to. */
export const QueueReturnedEventSchema = event('QUEUE_RETURNED', { ...reply, returned: z.array(QueueEntrySchema).min(1) })
/** "Stop when you can": the model call and tools running now finish, nothing new starts, the reply ends interrupted. */
export const StopRequestedEventSchema = event('STOP_REQUESTED', { ...reply, when: z.literal('step'), keep_queue: z.boolean() })

export const OutputEventSchema = z.discriminatedUnion('type', [
  ReplyStartEventSchema, ReplyEndEventSchema, ModelCallStartEventSchema, ModelCallEndEventSchema,
  TextBlockStartEventSchema, TextBlockDeltaEventSchema, TextBlockEndEventSchema,
  ThinkingBlockStartEventSchema, ThinkingBlockDeltaEventSchema, ThinkingBlockEndEventSchema,
  DataBlockStartEventSchema, DataBlockDeltaEventSchema, DataBlockEndEventSchema, HintBlockEventSchema,
  ToolCallStartEventSchema, ToolCallDeltaEventSchema, ToolCallEndEventSchema,
  ToolResultStartEventSchema, ToolResultTextDeltaEventSchema, ToolResultDataDeltaEventSchema, ToolResultEndEventSchema,
  RequireUserConfirmEventSchema, RequireExternalExecutionEventSchema, ExceedMaxItersEventSchema,
])
export const InputEventSchema = z.discriminatedUnion('type', [
  UserConfirmResultEventSchema, ExternalExecutionResultEventSchema, UserInterruptEventSchema,
])
export const OwnEventSchema = z.discriminatedUnion('type', [
  UserMessageEventSchema, InterruptRequestedEventSchema, ModelCallUsageEventSchema, ToolStartedEventSchema, RunsDecidedEventSchema, HintAddedEventSchema, ContextCompactedEventSchema, CustomEventSchema,
  MessageSteeredEventSchema, SteerJoinedEventSchema, MessageQueuedEventSchema, MessageUnqueuedEventSchema, QueueReturnedEventSchema, StopRequestedEventSchema,
])
export const AgentEventSchema = z.discriminatedUnion('type', [
  ...OutputEventSchema.options, ...InputEventSchema.options, ...OwnEventSchema.options,
])

export type OutputEvent = z.infer<typeof OutputEventSchema>
export type InputEvent = z.infer<typeof InputEventSchema>
export type AgentEvent = z.infer<typeof AgentEventSchema>
export type EventType = AgentEvent['type']
export type EventOf<T extends EventType> = Extract<AgentEvent, { type: T }>
export type ConfirmResult = z.infer<typeof ConfirmResultSchema>

export type ReplyStartEvent = EventOf<'REPLY_START'>
export type ReplyEndEvent = EventOf<'REPLY_END'>
export type ModelCallStartEvent = EventOf<'MODEL_CALL_START'>
export type ModelCallEndEvent = EventOf<'MODEL_CALL_END'>
export type ToolResultEndEvent = EventOf<'TOOL_RESULT_END'>
export type RequireUserConfirmEvent = EventOf<'REQUIRE_USER_CONFIRM'>
export type RequireExternalExecutionEvent = EventOf<'REQUIRE_EXTERNAL_EXECUTION'>
export type UserConfirmResultEvent = EventOf<'USER_CONFIRM_RESULT'>
export type ExternalExecutionResultEvent = EventOf<'EXTERNAL_EXECUTION_RESULT'>
export type UserInterruptEvent = EventOf<'USER_INTERRUPT'>
export type UserMessageEvent = EventOf<'USER_MESSAGE'>
export type ContextCompactedEvent = EventOf<'CONTEXT_COMPACTED'>

const outputTypes: ReadonlySet<string> = new Set(OutputEventSchema.options.map((s) => s.shape.type.value))
/** True for the AgentScope output events a reply yields (not input events, not agentlog's own). */
export const isOutputEvent = (e: AgentEvent): e is OutputEvent => outputTypes.has(e.type)

export { TextBlockSchema, DataBlockSchema }
