// A readable event printer for the examples: text streams inline, everything else on its own
// line; coloured on a terminal, plain when piped (or when NO_COLOR is set). Notes written for the
// model (<system-reminder>) are not shown; the result's state says the same to people.
import { withoutReminders, type OutputEvent } from '../../lib/index.js'

const tty = process.stdout.isTTY && !process.env.NO_COLOR
const paint = (code: number) => (s: string) => (tty ? `\x1b[${code}m${s}\x1b[0m` : s)
export const dim = paint(2)
export const bold = paint(1)
export const red = paint(31)
export const green = paint(32)
export const yellow = paint(33)
export const cyan = paint(36)

let inline = false
const out = (s: string) => process.stdout.write(s)
const lineOut = (s: string) => {
  if (inline) out('\n')
  inline = false
  out(`${s}\n`)
}

export const printEvent = (event: OutputEvent): void => {
  switch (event.type) {
    case 'TEXT_BLOCK_DELTA':
    case 'THINKING_BLOCK_DELTA':
    case 'TOOL_CALL_DELTA':
    case 'TOOL_RESULT_TEXT_DELTA': {
      const text = event.type === 'TOOL_RESULT_TEXT_DELTA' ? withoutReminders(event.delta) : event.delta
      if (!text) return
      if (!inline) out('    ')
      inline = true
      out(event.type === 'TEXT_BLOCK_DELTA' ? text : dim(text))
      return
    }
    case 'REPLY_END':
      return lineOut(`  ${bold('REPLY_END')} ${event.finished_reason === 'completed' ? green(event.finished_reason) : red(event.finished_reason)}${event.error ? ` ${event.error.type}: ${event.error.message}` : ''}`)
    case 'TOOL_RESULT_END':
      return lineOut(`  ${cyan(event.type)} ${event.tool_call_id} ${event.state === 'success' ? green(event.state) : red(`[${event.state === 'denied' ? 'denied by you' : event.state}]`)}`)
    case 'TOOL_CALL_START':
    case 'TOOL_RESULT_START':
      return lineOut(`  ${cyan(event.type)} ${event.tool_call_name} ${dim(event.tool_call_id)}`)
    case 'REQUIRE_USER_CONFIRM':
    case 'REQUIRE_EXTERNAL_EXECUTION':
      return lineOut(`  ${yellow(event.type)} ${event.tool_calls.map((c) => `${c.name}(${c.input})`).join(', ')}`)
    case 'MODEL_CALL_END':
      return lineOut(`  ${dim(`${event.type} ${event.finished_reason} in=${event.input_tokens} out=${event.output_tokens}`)}`)
    default:
      return lineOut(`  ${dim(event.type)}`)
  }
}
