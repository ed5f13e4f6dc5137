// `agentlog replay SOURCE [--at SEQ] [--json] [--tree]` (a file, or a session of a store): the log as a readable timeline (one line per event,
// deltas coalesced into their text), then the context after the last event shown, then (a session
// of a store) its sub-agent sessions, nested; `--tree`: the timeline of every session of the tree,
// from its root, each indented by its depth. It reads the logs and folds them; it never calls a
// model or runs a tool.
import { stateAt } from '../timeTravel/index.js'
import { intOption, parse, UsageError, type Command, type Io, type Parsed } from './command.js'
import { escapeControlsKeepLines, lineSafe } from './escape.js'
import { loadSource, SOURCE_OPTIONS, SOURCE_USAGE } from './source.js'
import { renderContext } from './render.js'
import { timeline } from './timeline.js'
import { flatten, loadTree, renderTree, TREE_OPTION } from './tree.js'
import type { AgentEvent } from '../core/events.js'

export const replay: Command = {
  summary: 'show a log as a timeline, then the context at that point',
  usage: `agentlog replay ${SOURCE_USAGE} [--at SEQ] [--json] [--tree]`,
  async run(args, rawIo) {
    const io = lineSafe(rawIo)
    const { values, positionals } = parse(args, { at: { type: 'string' }, json: { type: 'boolean' }, ...TREE_OPTION, ...SOURCE_OPTIONS }, ['SOURCE'])
    if (values.tree) return replayTree(positionals[0], values, io, rawIo)
    const { label: file, events } = await loadSource(positionals[0], values, io)
    const at = intOption('at', values.at) ?? events.length
    if (at > events.length) throw new UsageError(`--at ${at} is past the end of ${file}, which holds ${events.length} events`)
    const entries = timeline(events.slice(0, at))
    const state = stateAt(events, at)
    const tree = (await loadTree(positionals[0], values))?.tree
    if (values.json) {
      rawIo.out(escapeControlsKeepLines(JSON.stringify({ file, at, events: events.length, timeline: entries, state, ...(tree && { tree }) }, null, 2)))
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
    if (tree?.children.length) {
      io.out('')
      io.out(`Sub-agents: ${tree.children.length} (agentlog replay … --tree shows their timelines)`)
      for (const child of tree.children) for (const line of renderTree(child)) io.out(line)
    }
    return 0
  },
}

/** Every session of the tree from its root, depth first: a heading, then its timeline, indented by depth. */
const replayTree = async (source: string, values: Parsed['values'], io: Io, rawIo: Io): Promise<number> => {
  if (values.at !== undefined) throw new UsageError('--at applies to one log; replay --tree shows every log of the tree whole')
  const loaded = await loadTree(source, values, async (tree, store) => {
    const logs = new Map<string, AgentEvent[]>()
    for (const { node } of flatten(tree)) logs.set(node.session_id, await store.read(node.session_id))
    return logs
  })
  if (!loaded) throw new UsageError('--tree needs a session of a store (DIR, postgres://… or nats://… with --session ID): a log file holds no sub-agent logs')
  const { tree, visited: logs } = loaded
  const sessions = flatten(tree).map(({ node, depth }) => ({ node, depth, timeline: timeline(logs!.get(node.session_id)!) }))
  if (values.json) {
    rawIo.out(escapeControlsKeepLines(JSON.stringify({ tree, timelines: Object.fromEntries(sessions.map((s) => [s.node.session_id, s.timeline])) }, null, 2)))
    return 0
  }
  for (const { node, depth, timeline: entries } of sessions) {
    const pad = '    '.repeat(depth)
    io.out(`${pad}${renderTree({ ...node, children: [] }, values.session as string, '').join('')}`)
    for (const entry of entries) io.out(`${pad}  ${entry.from === entry.to ? entry.from : `${entry.from}-${entry.to}`}  ${entry.text}`)
  }
  return 0
}
