// `agentlog sessions STORE [--schema NAME] [--json]`: the sessions of a store (a sessions directory
// or a PostgreSQL URL), newest first as every store lists them (the web page's order too), with
// their status, last seq, start and last change, title (the first user message, shortened), and
// what a fork was forked from. A sub-agent's session is listed under its root, indented; --all
// lists every session flat, in the store's order. Read only.
import { parse, type Command } from './command.js'
import { escapeControls } from './escape.js'
import { displayName, openStore } from './source.js'
import type { SessionInfo } from '../hub/types.js'
import { nestSessions, parentOf } from '../hub/nested.js'

export const sessions: Command = {
  summary: 'list the sessions of a store with their status',
  usage: 'agentlog sessions (DIR | postgres://… | nats://…) [--schema NAME] [--all] [--json]',
  async run(args, io) {
    const { values, positionals } = parse(args, { schema: { type: 'string' }, json: { type: 'boolean' }, all: { type: 'boolean' } }, ['STORE'])
    const store = await openStore(positionals[0], values.schema as string | undefined)
    const all: SessionInfo[] = []
    try {
      let after: string | undefined
      do {
        const page = await store.list({ limit: 1000, after })
        all.push(...page.items)
        after = page.next
      } while (after !== undefined)
    } finally {
      await store.close()
    }
    if (values.json) {
      io.out(JSON.stringify({ store: displayName(positionals[0]), sessions: all }, null, 2))
      return 0
    }
    io.out(`${displayName(positionals[0])}: ${all.length} session${all.length === 1 ? '' : 's'}`)
    const rows = values.all ? all.map((info) => ({ info, depth: 0, parent: parentOf(info) })) : nestSessions(all)
    const width = Math.max(10, ...rows.map((r) => 2 * r.depth + r.info.session_id.length))
    for (const { info: s, depth, parent } of rows) {
      const fork = typeof s.metadata.forked_from === 'string' ? `  forked from ${escapeControls(s.metadata.forked_from)} at event #${String(s.metadata.from_seq)}` : ''
      const title = s.title === undefined ? '' : `  "${escapeControls(s.title)}"`
      const under = depth === 0 && parent ? `  sub-agent of ${escapeControls(parent.session_id)}` : ''
      io.out(`  ${`${'  '.repeat(depth)}${escapeControls(s.session_id)}`.padEnd(width)}  ${s.status.padEnd(7)}  ${String(s.last_seq).padStart(7)} events  started ${s.created_at}  updated ${s.updated_at}${title}${fork}${under}`)
    }
    return 0
  },
}
