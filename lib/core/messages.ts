// Messages and content blocks: AgentScope's `Msg` and its blocks as zod schemas, the single
// source of truth for their TypeScript types. Objects are strict (an unknown field is an error),
// except the thinking block, which carries provider extras such as Anthropic's `signature`.
import { z } from 'zod'

const timestamps = {
  id: z.string().min(1),
  created_at: z.string(),
  finished_at: z.string().nullable(),
}

export const ErrorTypeSchema = z.enum([
  'authentication', 'permission', 'rate_limit', 'invalid_request', 'upstream',
  'connection', 'internal', 'setup', 'unknown',
])
export const ErrorInfoSchema = z.strictObject({ type: ErrorTypeSchema, message: z.string() })
export const ReplyFinishedReasonSchema = z.enum(['completed', 'interrupted', 'exceed_max_iters', 'error'])
export const ToolCallStateSchema = z.enum(['pending', 'asking', 'allowed', 'submitted', 'finished'])
export const ToolResultStateSchema = z.enum(['success', 'error', 'interrupted', 'denied', 'running'])
export const PermissionBehaviorSchema = z.enum(['allow', 'deny', 'ask', 'passthrough'])

export const PermissionRuleSchema = z.strictObject({
  tool_name: z.string(),
  rule_content: z.string().nullable(),
  behavior: PermissionBehaviorSchema,
  source: z.string(),
})

export const UsageSchema = z.strictObject({
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  cache_input_tokens: z.number().int(),
  cache_creation_input_tokens: z.number().int(),
})

export const Base64SourceSchema = z.strictObject({ type: z.literal('base64'), data: z.string(), media_type: z.string() })
export const URLSourceSchema = z.strictObject({ type: z.literal('url'), url: z.string().min(1), media_type: z.string() })

export const TextBlockSchema = z.strictObject({ type: z.literal('text'), text: z.string(), ...timestamps })
export const ThinkingBlockSchema = z.looseObject({ type: z.literal('thinking'), thinking: z.string(), ...timestamps })
export const DataBlockSchema = z.strictObject({
  type: z.literal('data'),
  name: z.string().nullable().optional(),
  source: z.discriminatedUnion('type', [Base64SourceSchema, URLSourceSchema]),
  ...timestamps,
})
const TextOrData = z.discriminatedUnion('type', [TextBlockSchema, DataBlockSchema])
export const HintBlockSchema = z.strictObject({
  type: z.literal('hint'),
  hint: z.union([z.string(), z.array(TextOrData)]),
  source: z.string().nullable().optional(),
  ...timestamps,
})
export const ToolCallBlockSchema = z.strictObject({
  type: z.literal('tool_call'),
  name: z.string(),
  input: z.string(),
  state: ToolCallStateSchema,
  suggested_rules: z.array(PermissionRuleSchema).optional(),
  ...timestamps,
})
export const ToolResultBlockSchema = z.strictObject({
  type: z.literal('tool_result'),
  name: z.string(),
  output: z.union([z.string(), z.array(TextOrData)]),
  state: ToolResultStateSchema,
  metadata: z.record(z.string(), z.unknown()),
  ...timestamps,
})

export const BlockSchema = z.discriminatedUnion('type', [
  TextBlockSchema, ThinkingBlockSchema, HintBlockSchema, ToolCallBlockSchema, ToolResultBlockSchema, DataBlockSchema,
])

export const MsgSchema = z.strictObject({
  id: z.string().min(1),
  name: z.string(),
  role: z.enum(['user', 'assistant', 'system']),
  content: z.array(BlockSchema),
  metadata: z.record(z.string(), z.unknown()),
  created_at: z.string(),
  usage: UsageSchema.nullable(),
  finished_at: z.string().nullable(),
  finished_reason: ReplyFinishedReasonSchema.nullable(),
  structured_output: z.record(z.string(), z.unknown()).nullable(),
  error: ErrorInfoSchema.nullable(),
})

export type ErrorType = z.infer<typeof ErrorTypeSchema>
export type ErrorInfo = z.infer<typeof ErrorInfoSchema>
export type ReplyFinishedReason = z.infer<typeof ReplyFinishedReasonSchema>
export type ToolCallState = z.infer<typeof ToolCallStateSchema>
export type ToolResultState = z.infer<typeof ToolResultStateSchema>
export type PermissionBehavior = z.infer<typeof PermissionBehaviorSchema>
export type PermissionRule = z.infer<typeof PermissionRuleSchema>
export type Usage = z.infer<typeof UsageSchema>
export type TextBlock = z.infer<typeof TextBlockSchema>
export type ThinkingBlock = z.infer<typeof ThinkingBlockSchema>
export type DataBlock = z.infer<typeof DataBlockSchema>
export type HintBlock = z.infer<typeof HintBlockSchema>
export type ToolCallBlock = z.infer<typeof ToolCallBlockSchema>
export type ToolResultBlock = z.infer<typeof ToolResultBlockSchema>
export type Block = z.infer<typeof BlockSchema>
export type Msg = z.infer<typeof MsgSchema>
export type Role = Msg['role']

export const zeroUsage = (): Usage => ({ input_tokens: 0, output_tokens: 0, cache_input_tokens: 0, cache_creation_input_tokens: 0 })
