// What people read, as opposed to what the model reads: tool results without the model-facing
// `<system-reminder>` text, plain words for a result's state and a reply's end, usage in tokens.
import type { Msg, ToolResultBlock, Usage } from '../lib/core/messages.js'

const REMINDER = /<system-reminder>[\s\S]*?<\/system-reminder>/g

/** A result's text for people: the model-facing reminders removed. */
export const resultText = (output: ToolResultBlock['output']): string => {
  const text = typeof output === 'string' ? output : output.map((b) => (b.type === 'text' ? b.text : '')).join('')
  return text.replace(REMINDER, '').trim()
}

export const resultImages = (output: ToolResultBlock['output']) =>
  typeof output === 'string' ? [] : output.filter((b) => b.type === 'data')

export const RESULT_LABEL: Record<ToolResultBlock['state'], string> = {
  running: 'Running…',
  success: 'Done',
  error: 'Failed',
  interrupted: 'Stopped by you',
  denied: 'Denied by you',
}

export const replyEndLabel = (msg: Msg): string | null => {
  switch (msg.finished_reason) {
    case 'interrupted': return 'Stopped'
    case 'exceed_max_iters': return 'Stopped after too many steps'
    case 'error': return `Error${msg.error ? `: ${msg.error.message}` : ''}`
    default: return null
  }
}

export const usageText = (usage: Usage | null): string | null =>
  usage && (usage.input_tokens || usage.output_tokens) ? `${usage.input_tokens} in · ${usage.output_tokens} out tokens` : null

/** "12 s ago", "5 min ago", or the date, for a session's last activity. */
export const ago = (iso: string, now = Date.now()): string => {
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000))
  if (s < 60) return `${s} s ago`
  if (s < 3600) return `${Math.round(s / 60)} min ago`
  if (s < 86400) return `${Math.round(s / 3600)} h ago`
  return new Date(iso).toLocaleDateString()
}

/** Tool-call arguments pretty-printed when they are complete JSON, as streamed otherwise. */
export const prettyArgs = (input: string): string => {
  try {
    return JSON.stringify(JSON.parse(input), null, 2)
  } catch {
    return input
  }
}
