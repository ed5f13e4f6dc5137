// Factories for what callers send: a user message and the input events. Each fills in `id`,
// `created_at`, `metadata` and `type`, so a caller only gives what the event is about.
import { systemClock, type Clock } from './clock.js'
import type * as events from './events.js'
import type * as messages from './messages.js'
import type { Block, DataBlock, Msg, PermissionRule, ToolCallBlock } from './messages.js'

// Each factory shares its name with the type of what it makes (a value and a type, like a class).
export type TextBlock = messages.TextBlock
export type ToolResultBlock = messages.ToolResultBlock
export type UserInterruptEvent = events.UserInterruptEvent
export type UserConfirmResultEvent = events.UserConfirmResultEvent
export type ExternalExecutionResultEvent = events.ExternalExecutionResultEvent

export interface UserMsgInit {
  name?: string
  content: string | Block[]
  role?: 'user' | 'system'
  metadata?: Record<string, unknown>
}

export const UserMsg = ({ name = 'user', content, role = 'user', metadata = {} }: UserMsgInit, clock: Clock = systemClock): Msg => {
  const created_at = clock.now()
  return {
    id: clock.id(), name, role, metadata, created_at,
    content: typeof content === 'string' ? [TextBlock(content, clock)] : content,
    usage: null, finished_at: created_at, finished_reason: null, structured_output: null, error: null,
  }
}

export const TextBlock = (text: string, clock: Clock = systemClock): TextBlock => {
  const created_at = clock.now()
  return { type: 'text', id: clock.id(), text, created_at, finished_at: created_at }
}

export const UserInterruptEvent = ({ reply_id }: { reply_id: string }, clock: Clock = systemClock): UserInterruptEvent =>
  ({ id: clock.id(), created_at: clock.now(), metadata: {}, type: 'USER_INTERRUPT', reply_id })

export interface ConfirmResultInit {
  confirmed: boolean
  tool_call: ToolCallBlock
  rules?: PermissionRule[] | null
}

export const UserConfirmResultEvent = (
  { reply_id, confirm_results }: { reply_id: string; confirm_results: ConfirmResultInit[] },
  clock: Clock = systemClock,
): UserConfirmResultEvent => ({
  id: clock.id(), created_at: clock.now(), metadata: {}, type: 'USER_CONFIRM_RESULT', reply_id,
  confirm_results: confirm_results.map((r): events.ConfirmResult => ({ confirmed: r.confirmed, tool_call: r.tool_call, rules: r.rules ?? null })),
})

export const ExternalExecutionResultEvent = (
  { reply_id, execution_results }: { reply_id: string; execution_results: ToolResultBlock[] },
  clock: Clock = systemClock,
): ExternalExecutionResultEvent => ({
  id: clock.id(), created_at: clock.now(), metadata: {}, type: 'EXTERNAL_EXECUTION_RESULT', reply_id, execution_results,
})

export interface ToolResultBlockInit {
  /** The id of the tool call this result answers. */
  id: string
  name: string
  output: string | (TextBlock | DataBlock)[]
  state?: 'success' | 'error' | 'interrupted' | 'denied'
  metadata?: Record<string, unknown>
}

export const ToolResultBlock = ({ id, name, output, state = 'success', metadata = {} }: ToolResultBlockInit, clock: Clock = systemClock): ToolResultBlock => {
  const created_at = clock.now()
  return { type: 'tool_result', id, name, output, state, metadata, created_at, finished_at: created_at }
}
