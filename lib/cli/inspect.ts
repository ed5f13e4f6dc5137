// `agentlog inspect SOURCE [--json] [--tree]` (a file, or a session of a store): what happened in a log at a glance: replies with their end
// reasons and durations, usage totals, tool calls by state, pauses and interrupts, and (a session of
// a store) its sub-agent sessions, nested; `--tree`: the whole tree from its root. It reads the
// logs; it never calls a model or runs a tool.
import { parse, type Command } from './command.js'
import { escapeControlsKeepLines, lineSafe } from './escape.js'
import { loadSource, SOURCE_OPTIONS, SOURCE_USAGE } from './source.js'
import { quote } from './render.js'
import { summarize } from './summary.js'
import { loadTree, renderTree, TREE_OPTION } from './tree.js'
import { UsageError } from './command.js'

const reason = (end: string) => (end === 'completed' ? end : end === 'paused' || end === 'running' ? `(${end})` : `[${end.toUpperCase()}]`)
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`
const counts = (states: Record<string, number>) => Object.entries(states).map(([state, n]) => `${state} ${n}`).join(', ')

export const inspect: Command = {
  summary: 'replies, usage, tool calls by state, pauses and interrupts of a log',
  usage: `agentlog inspect ${SOURCE_USAGE} [--json] [--tree]`,
  async run(args, rawIo) {
    const io = lineSafe(rawIo)
    const { values, positionals } = parse(args, { json: { type: 'boolean' }, ...TREE_OPTION, ...SOURCE_OPTIONS }, ['SOURCE'])
    const { label: file, events } = await loadSource(positionals[0], values, io)
    const s = summarize(events)
    const tree = (await loadTree(positionals[0], values))?.tree
    if (values.tree && !tree) throw new UsageError('--tree needs a session of a store (DIR, postgres://… or nats://… with --session ID): a log file holds no sub-agent logs')
    if (values.json) {
      rawIo.out(escapeControlsKeepLines(JSON.stringify({ file, ...s, ...(tree && { tree }) }, null, 2)))
      return 0
    }
    io.out(`${file}: ${s.events} events, ${s.replies.length} replies, session${s.sessions.length === 1 ? '' : 's'} ${s.sessions.join(', ') || '(none)'}`)
    io.out('Replies:')
    for (const [i, r] of s.replies.entries()) {
      const took = r.seconds === null ? '-' : `${r.seconds.toFixed(2)} s`
      const error = r.error ? ` ${r.error.type}: ${quote(r.error.message, 80)}` : ''
      io.out(`  ${String(i + 1).padStart(3)}  ${r.reply_id}  ${reason(r.end)}${error}  ${took}  seq ${r.from}-${r.to ?? '…'}  ${plural(r.model_calls, 'model call')}, ${plural(r.tool_calls, 'tool call')}, ${r.usage.input_tokens} in / ${r.usage.output_tokens} out  ${quote(r.prompt, 60)}`)
    }
    const u = s.usage
    io.out(`Usage: ${u.input_tokens} input, ${u.output_tokens} output, ${u.cache_input_tokens} cache read, ${u.cache_creation_input_tokens} cache write tokens`)
    const total = Object.values(s.results).reduce((a, b) => a + b, 0)
    io.out(`Tool calls: ${total}${total ? ` (${counts(s.results)})` : ''}`)
    for (const [name, states] of Object.entries(s.tools)) io.out(`  ${name}: ${counts(states)}`)
    io.out(`Pauses: ${s.pauses.length}`)
    for (const p of s.pauses) io.out(`  seq ${p.seq}  ${p.kind === 'confirm' ? 'confirmation' : 'external execution'} of ${p.calls.join(', ')} -> ${p.outcome}${p.outcome_seq ? ` at seq ${p.outcome_seq}` : ''}`)
    io.out(`Interrupts: ${s.interrupts.length}`)
    for (const x of s.interrupts) io.out(`  seq ${x.seq}  ${x.kind === 'cancel' ? 'cancel of running' : 'USER_INTERRUPT of paused'} reply ${x.reply_id}`)
    if (values.tree && tree) {
      io.out('Tree:')
      for (const line of renderTree(tree, values.session as string)) io.out(line)
    } else if (tree) {
      io.out(`Sub-agents: ${tree.children.length}`)
      for (const child of tree.children) for (const line of renderTree(child)) io.out(line)
    }
    return 0
  },
}
