// Provider-neutral turns for the request formatters. An AgentScope assistant message holds a whole
// reply (several ReAct rounds, each round's tool results after its calls); `toTurns` splits the
// messages into assistant content, tool results and user content in order, with hint blocks as user
// content placed after the results of the round they came in. Each formatter maps turns to its shape.
import type { DataBlock, HintBlock, Msg, ThinkingBlock, ToolCallBlock, ToolResultBlock } from '../core/messages.js'

export type Part = { type: 'text'; text: string } | { type: 'data'; source: DataBlock['source']; name?: string | null }
export type TurnPart = Part | ThinkingBlock | ToolCallBlock

export type Turn =
  | { role: 'system'; text: string }
  /** User turns hold only text and data parts; assistant turns also thinking and tool calls. */
  | { role: 'user' | 'assistant'; parts: TurnPart[] }
  | { role: 'tool'; result: ToolResultBlock }

export const toTurns = (messages: Msg[]): Turn[] => {
  const turns: Turn[] = []
  for (const msg of messages) {
    if (msg.role === 'system') {
      turns.push({ role: 'system', text: systemText(msg) })
      continue
    }
    let draft: { role: 'user' | 'assistant'; parts: TurnPart[] } | undefined
    let hints: Part[] = []
    const flushDraft = () => {
      if (draft?.parts.length) turns.push(draft)
      draft = undefined
    }
    const flushHints = () => {
      if (hints.length) turns.push({ role: 'user', parts: hints })
      hints = []
    }
    for (const block of msg.content) {
      if (block.type === 'hint') {
        // Deferred: a hint must not come between tool calls and their results.
        hints.push(...hintParts(block))
      } else if (block.type === 'tool_result') {
        flushDraft()
        turns.push({ role: 'tool', result: block })
      } else {
        if (hints.length) {
          flushDraft()
          flushHints()
        }
        const role = block.type === 'tool_call' || msg.role === 'assistant' ? 'assistant' : 'user'
        if (draft?.role !== role) {
          flushDraft()
          draft = { role, parts: [] }
        }
        if (block.type === 'text') draft.parts.push({ type: 'text', text: block.text })
        else if (block.type === 'data') draft.parts.push({ type: 'data', source: block.source, name: block.name })
        else if (role === 'assistant') draft.parts.push(block)
      }
    }
    flushDraft()
    flushHints()
  }
  return turns
}

const hintParts = (block: HintBlock): Part[] =>
  typeof block.hint === 'string' ? [{ type: 'text', text: block.hint }] : block.hint.map(toPart)

const toPart = (block: Exclude<ToolResultBlock['output'], string>[number]): Part =>
  block.type === 'text' ? { type: 'text', text: block.text } : { type: 'data', source: block.source, name: block.name }

/** A tool result's output as parts (a string output is one text part). */
export const resultParts = (result: ToolResultBlock): Part[] =>
  typeof result.output === 'string' ? [{ type: 'text', text: result.output }] : result.output.map(toPart)

/** The text that stands in for data a provider does not accept at that place. */
export const dataPlaceholder = (part: Extract<Part, { type: 'data' }>): string =>
  `[${part.source.media_type} data${part.name ? ` "${part.name}"` : ''} omitted: not supported here]`

/** Parts as plain text: data becomes its placeholder. */
export const partsText = (parts: Part[]): string =>
  parts.map((part) => (part.type === 'text' ? part.text : dataPlaceholder(part))).join('\n')

const systemText = (msg: Msg): string =>
  partsText(msg.content.flatMap((block): Part[] =>
    block.type === 'text' ? [{ type: 'text', text: block.text }]
      : block.type === 'hint' ? hintParts(block)
        : block.type === 'data' ? [toPart(block)]
          : []))
