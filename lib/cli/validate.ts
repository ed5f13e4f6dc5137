// `agentlog validate SOURCE [--json]` (a file, or a session of a store): checks every line against the event schemas and the log
// against the invariants of REFERENCE.md section 5; prints the first violations with their line
// numbers (line = seq + 1: line 1 is the version marker). Exit code 0 when valid, 1 otherwise.
import { checkLog } from '../core/logCheck.js'
import { isAgentError, parse, type Command } from './command.js'
import { escapeControlsKeepLines, lineSafe } from './escape.js'
import { loadSource, SOURCE_OPTIONS, SOURCE_USAGE } from './source.js'

const SHOWN = 10

export const validate: Command = {
  summary: 'check a log against the schemas and the invariants (exit 0 or 1)',
  usage: `agentlog validate ${SOURCE_USAGE} [--json]`,
  async run(args, rawIo) {
    const io = lineSafe(rawIo)
    const json = (value: unknown) => rawIo.out(escapeControlsKeepLines(JSON.stringify(value, null, 2)))
    const { values, positionals } = parse(args, { json: { type: 'boolean' }, ...SOURCE_OPTIONS }, ['SOURCE'])
    let file = positionals[0]
    let events
    try {
      ;({ label: file, events } = await loadSource(file, values, io))
    } catch (error) {
      if (!isAgentError(error)) throw error
      const line = (error.data as { line?: number } | undefined)?.line ?? null
      if (values.json) json({ file, valid: false, code: error.code, violations: [{ line, message: error.message }], notes: [] })
      else io.err(`agentlog validate: ${error.code}: ${error.message}`)
      return 1
    }
    const { violations, notes, state } = checkLog(events)
    const at = (f: { seq: number; message: string }) => ({ line: f.seq + 1, seq: f.seq, message: f.message })
    if (values.json) {
      json({ file, valid: violations.length === 0, events: events.length, violations: violations.map(at), notes: notes.map(at) })
      return violations.length ? 1 : 0
    }
    for (const note of notes) io.err(`note: ${file}:${note.seq + 1}: ${note.message}`)
    if (violations.length === 0) {
      const replies = state.context.filter((m) => m.role === 'assistant').length
      io.out(`${file}: valid (${events.length} events, ${replies} ended replies${state.status === 'idle' ? '' : `, reply ${state.reply_id} ${state.status}`})`)
      return 0
    }
    for (const v of violations.slice(0, SHOWN)) io.out(`${file}:${v.seq + 1}: ${v.message}`)
    if (violations.length > SHOWN) io.out(`... and ${violations.length - SHOWN} more`)
    io.out(`${file}: INVALID (${violations.length} violation${violations.length === 1 ? '' : 's'}; the first on line ${violations[0].seq + 1})`)
    return 1
  },
}
