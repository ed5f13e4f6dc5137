// The reply's structured output. As AgentScope: the built-in tool `GenerateStructuredOutput`, whose
// arguments are the value once a call of it succeeded (the reply slice keeps them in
// `loop.structured_output`); the context's message does not carry it, the message `reply()`
// resolves to does. Logs of earlier versions used `generate_response`, whose successful result's
// metadata carried the value onto the message (`structured_output`, `metadata.structured_output`):
// they replay as they were.
import type { ToolResultEndEvent } from '../lib/core/events.js'
import type { Msg, ToolResultBlock } from '../lib/core/messages.js'
import { findBlockIndex, findToolCall } from './blocks.js'

export const STRUCTURED_OUTPUT_TOOL = 'GenerateStructuredOutput'
const LEGACY_OUTPUT_TOOL = 'generate_response'

/** Logs of earlier versions: a successful `generate_response` result gives the message its value. */
export const recordStructuredOutput = (msg: Msg, event: ToolResultEndEvent): Msg => {
  const value = event.metadata.structured_output
  if (event.state !== 'success' || typeof value !== 'object' || value === null || Array.isArray(value)) return msg
  const result = msg.content[findBlockIndex(msg, 'tool_result', event.tool_call_id)] as ToolResultBlock | undefined
  if (result?.name !== LEGACY_OUTPUT_TOOL) return msg
  const structured_output = value as Record<string, unknown>
  return { ...msg, structured_output, metadata: { ...msg.metadata, structured_output } }
}

/** The structured output a reply's message holds: the arguments of its last successful output-tool call (or a legacy value); null when none. */
export const structuredOutputOf = (msg: Msg): Record<string, unknown> | null => {
  if (msg.structured_output) return msg.structured_output
  for (let i = msg.content.length - 1; i >= 0; i--) {
    const block = msg.content[i]
    if (block.type !== 'tool_result' || block.name !== STRUCTURED_OUTPUT_TOOL || block.state !== 'success') continue
    const value = argumentsOf(findToolCall(msg, block.id)?.input)
    if (value) return value
  }
  return null
}

/** A call's arguments when they are a JSON object, else null. */
export const argumentsOf = (input: string | undefined): Record<string, unknown> | null => {
  if (input === undefined) return null
  try {
    const value: unknown = JSON.parse(input)
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? value as Record<string, unknown> : null
  } catch {
    return null
  }
}
