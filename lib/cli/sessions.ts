// `agentlog sessions STORE [--schema NAME] [--json]`: the sessions of a store (a sessions directory
// or a PostgreSQL URL), newest first as every store lists them (the web page's order too), with
// their status, last seq, start and last change, title (the first user message, shortened), and
// what a fork was forked from. Read only.
import { parse, type Command } from './command.js'
import { escapeControls } from './escape.js'
import { displayName, openStore } from './source.js'
import type { SessionInfo } from '../hub/types.js'

export const sessions: Command = {
  summary: 'list the sessions of a store with their status',
  usage: 'agentlog sessions (DIR | postgres://… | nats://…) [--schema NAME] [--json]',
  async run(args, io) {
    const { values, positionals } = parse(args, { schema: { type: 'string' }, json: { type: 'boolean' } }, ['STORE'])
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
    const width = Math.max(10, ...all.map((s) => s.session_id.length))
    for (const s of all) {
      const fork = typeof s.metadata.forked_from === 'string' ? `  forked from ${escapeControls(s.metadata.forked_from)} at event #${String(s.metadata.from_seq)}` : ''
      const title = s.title === undefined ? '' : `  "${escapeControls(s.title)}"`
      io.out(`  ${s.session_id.padEnd(width)}  ${s.status.padEnd(7)}  ${String(s.last_seq).padStart(7)} events  started ${s.created_at}  updated ${s.updated_at}${title}${fork}`)
    }
    return 0
  },
}
