// What people see of a reply in `agentlog chat`: text as it streams, thinking and tool activity
// dimmed, a tool result's status in words (`[denied by you]`, `[interrupted]`) instead of the note
// written for the model, and every string from the model or a tool with its control characters
// escaped (a tool argument's \r cannot rewrite the line). Also the earlier conversation, briefly.
import type { OutputEvent } from '../core/events.js'
import type { Msg } from '../core/messages.js'
import { withoutReminders } from '../agent/text.js'
import { escapeControls, escapeControlsKeepLayout } from './escape.js'

const MAX_RESULT = 400
const MAX_HISTORY_TEXT = 200
const safeText = escapeControlsKeepLayout

const STATUS: Record<string, string> = { success: '[done]', error: '[failed]', denied: '[denied by you]', interrupted: '[interrupted]', running: '[running]' }

export interface Painter {
  dim(text: string): string
}

export const chatRenderer = (write: (text: string) => void, paint: Painter) => {
  let atLineStart = true
  const out = (text: string) => {
    if (!text) return
    write(text)
    atLineStart = text.endsWith('\n')
  }
  const newline = () => {
    if (!atLineStart) out('\n')
  }
  return {
    newline,
    render(event: OutputEvent): void {
      switch (event.type) {
        case 'TEXT_BLOCK_DELTA':
          return out(safeText(event.delta))
        case 'THINKING_BLOCK_DELTA':
          return out(paint.dim(safeText(event.delta)))
        case 'THINKING_BLOCK_END':
        case 'TEXT_BLOCK_END':
        case 'TOOL_CALL_END':
          return newline()
        case 'TOOL_CALL_START':
          newline()
          return out(paint.dim(`→ ${escapeControls(event.tool_call_name)} `))
        case 'TOOL_CALL_DELTA':
          return out(paint.dim(escapeControls(event.delta)))
        case 'TOOL_RESULT_TEXT_DELTA': {
          const text = withoutReminders(event.delta)
          return out(paint.dim(safeText(text.length > MAX_RESULT ? `${text.slice(0, MAX_RESULT)}…` : text)))
        }
        case 'DATA_BLOCK_START':
          // An image (or other data) the model returns: the terminal names it.
          newline()
          return out(paint.dim(`[${escapeControls(event.media_type)} from the model]\n`))
        case 'TOOL_RESULT_DATA_DELTA':
          newline()
          return out(paint.dim(`[${escapeControls(event.media_type)}]\n`))
        case 'TOOL_RESULT_END':
          newline()
          return out(paint.dim(`${STATUS[event.state] ?? `[${event.state}]`}\n`))
        case 'REPLY_END':
          newline()
          if (event.finished_reason === 'interrupted') out(paint.dim('[reply interrupted]\n'))
          if (event.finished_reason === 'exceed_max_iters') out(paint.dim('[stopped: too many steps]\n'))
      }
    },
  }
}

const shorten = (text: string, max = MAX_HISTORY_TEXT) => (text.length > max ? `${text.slice(0, max)}…` : text)

/** A message of the earlier conversation in a few lines: the user's text after "> ", the reply's text, its tool calls with their outcome. */
export const historyLines = (msg: Msg, paint: Painter): string[] => {
  const lines: string[] = []
  const results = new Map(msg.content.flatMap((b) => (b.type === 'tool_result' ? [[b.id, b.state] as const] : [])))
  for (const block of msg.content) {
    if (block.type === 'text' && block.text.trim()) lines.push(msg.role === 'user' ? `> ${escapeControls(shorten(block.text))}` : escapeControls(shorten(block.text)))
    if (block.type === 'tool_call') {
      const state = results.get(block.id)
      lines.push(paint.dim(`→ ${escapeControls(block.name)} ${escapeControls(shorten(block.input, 120))} ${state ? STATUS[state] ?? `[${state}]` : `(${block.state})`}`))
    }
  }
  if (msg.role === 'assistant' && msg.finished_reason === 'interrupted') lines.push(paint.dim('[reply interrupted]'))
  return lines
}
