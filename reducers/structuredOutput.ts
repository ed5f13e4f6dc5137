// The reply's structured output: a successful `generate_response` result whose metadata carries
// `structured_output` (an object) gives the reply's message its value, in `structured_output`
// (AgentScope 2) and `metadata.structured_output` (where AgentScope 1 keeps it). A result of any
// other tool, or a failed one, leaves the message as it is.
import type { ToolResultEndEvent } from '../lib/events.js'
import type { Msg, ToolResultBlock } from '../lib/messages.js'
import { findBlockIndex } from './blocks.js'

export const STRUCTURED_OUTPUT_TOOL = 'generate_response'

export const recordStructuredOutput = (msg: Msg, event: ToolResultEndEvent): Msg => {
  const value = event.metadata.structured_output
  if (event.state !== 'success' || typeof value !== 'object' || value === null || Array.isArray(value)) return msg
  const result = msg.content[findBlockIndex(msg, 'tool_result', event.tool_call_id)] as ToolResultBlock | undefined
  if (result?.name !== STRUCTURED_OUTPUT_TOOL) return msg
  const structured_output = value as Record<string, unknown>
  return { ...msg, structured_output, metadata: { ...msg.metadata, structured_output } }
}
