// Text rendering shared by the inspection commands: quoted and shortened values, tool calls with
// their arguments, tool results with their state marked, and the context (the conversation) of a
// state, block by block.
import type { Block, Msg, ToolResultBlock } from '../core/messages.js'
import type { AgentState } from '../../reducers/state.js'

/** A value as a one-line JSON string, shortened to `max` characters. */
export const quote = (text: string, max = 160): string => {
  const json = JSON.stringify(text)
  return json.length <= max ? json : `${json.slice(0, max - 1)}…" (${text.length} chars)`
}

/** Tool-call arguments as written by the model (raw JSON, possibly partial). */
export const args = (input: string, max = 160): string => {
  const flat = input.replace(/\s*\n\s*/g, ' ')
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}… (${input.length} chars)`
}

/** Who wrote a message: its role, and its name when the name says more ("user", "assistant ann"). */
export const speaker = (msg: Pick<Msg, 'role' | 'name'>): string => (msg.name && msg.name !== msg.role ? `${msg.role} ${msg.name}` : msg.role)

/** A result state, upper-cased and bracketed unless it is a success. */
export const mark = (state: string): string => (state === 'success' ? 'ok' : `[${state.toUpperCase()}]`)

export const outputText = (output: ToolResultBlock['output']): string =>
  typeof output === 'string' ? output : output.map((b) => (b.type === 'text' ? b.text : `[data ${b.source.media_type}]`)).join('')

export const msgText = (msg: Msg): string =>
  msg.content.map((b) => (b.type === 'text' ? b.text : b.type === 'data' ? `[data ${b.source.media_type}]` : '')).join('')

export const renderBlock = (block: Block): string => {
  switch (block.type) {
    case 'text':
      return `text ${quote(block.text)}`
    case 'thinking':
      return `thinking ${quote(block.thinking)}`
    case 'data':
      return `data ${block.source.media_type}${block.source.type === 'url' ? ` ${block.source.url}` : ` (${block.source.data.length} base64 chars)`}`
    case 'hint':
      return `hint ${quote(typeof block.hint === 'string' ? block.hint : block.hint.map((b) => (b.type === 'text' ? b.text : '[data]')).join(''))}`
    case 'tool_call':
      return `tool call ${block.name}(${args(block.input)}) [${block.id}] ${block.state}`
    case 'tool_result':
      return `result ${block.name} [${block.id}] ${mark(block.state)} ${quote(outputText(block.output))}`
  }
}

const renderMsg = (msg: Msg, index: string): string[] => {
  const how = msg.role === 'assistant' ? ` (reply ${msg.id}${msg.finished_reason ? `, ${msg.finished_reason === 'completed' ? 'completed' : `[${msg.finished_reason.toUpperCase()}]`}` : ''})` : ''
  const head = `  ${index} ${speaker(msg)}${how}`
  if (msg.role !== 'assistant' && msg.content.every((b) => b.type === 'text')) return [`${head}: ${quote(msgText(msg))}`]
  const lines = [`${head}:`, ...msg.content.map((b) => `        ${renderBlock(b)}`)]
  if (msg.error) lines.push(`        error ${msg.error.type}: ${quote(msg.error.message)}`)
  return lines
}

/** The conversation of a state: the context, then the reply in progress. */
export const renderContext = (state: AgentState): string[] => {
  const waiting = state.waiting_for.length ? `, waiting for ${state.waiting_for.map((c) => `${c.name} [${c.id}] (${c.state})`).join(', ')}` : ''
  const lines = [`Context after seq ${state.seq} (${state.status}${waiting}):`]
  state.context.forEach((msg, i) => lines.push(...renderMsg(msg, `[${i + 1}]`)))
  if (state.reply_msg) lines.push(...renderMsg(state.reply_msg, `[${state.status}]`))
  if (lines.length === 1) lines.push('  (empty)')
  const u = state.usage
  lines.push(`Usage: ${u.input_tokens} input, ${u.output_tokens} output, ${u.cache_input_tokens} cache read, ${u.cache_creation_input_tokens} cache write tokens`)
  return lines
}
