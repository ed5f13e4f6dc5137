// `agentlog replay SOURCE [--at SEQ] [--json]` (a file, or a session of a store): the log as a readable timeline (one line per event,
// deltas coalesced into their text), then the context after the last event shown. It reads the
// file and folds it; it never calls a model or runs a tool.
import { stateAt } from '../timeTravel.js'
import { intOption, parse, UsageError, type Command } from './command.js'
import { loadSource, SOURCE_OPTIONS, SOURCE_USAGE } from './source.js'
import { renderContext } from './render.js'
import { timeline } from './timeline.js'

export const replay: Command = {
  summary: 'show a log as a timeline, then the context at that point',
  usage: `agentlog replay ${SOURCE_USAGE} [--at SEQ] [--json]`,
  async run(args, io) {
    const { values, positionals } = parse(args, { at: { type: 'string' }, json: { type: 'boolean' }, ...SOURCE_OPTIONS }, ['SOURCE'])
    const { label: file, events } = await loadSource(positionals[0], values, io)
    const at = intOption('at', values.at) ?? events.length
    if (at > events.length) throw new UsageError(`--at ${at} is past the end of ${file}, which holds ${events.length} events`)
    const entries = timeline(events.slice(0, at))
    const state = stateAt(events, at)
    if (values.json) {
      io.out(JSON.stringify({ file, at, events: events.length, timeline: entries, state }, null, 2))
      return 0
    }
    const width = String(at).length * 2 + 1
    io.out(`${file}: events 1-${at} of ${events.length}`)
    for (const entry of entries) {
      const seq = entry.from === entry.to ? String(entry.from) : `${entry.from}-${entry.to}`
      io.out(`${seq.padStart(width)}  ${entry.text}`)
    }
    io.out('')
    for (const line of renderContext(state)) io.out(line)
    return 0
  },
}
