// `agentlog migrate postgres://… [--schema NAME]`: creates or upgrades the store's tables (what
// `await store.migrate()` does; safe while other processes use or migrate the same schema).
import { parse, UsageError, type Command } from './command.js'
import { displayName, isDatabaseUrl, openStore } from './source.js'

export const migrate: Command = {
  summary: 'create or upgrade the tables of a PostgreSQL session store',
  usage: 'agentlog migrate postgres://… [--schema NAME]',
  async run(args, io) {
    const { values, positionals } = parse(args, { schema: { type: 'string' } }, ['URL'])
    const [url] = positionals
    if (!isDatabaseUrl(url)) throw new UsageError(`expected a postgres:// URL; received ${url}`)
    const store = await openStore(url, values.schema as string | undefined)
    try {
      const applied = (await store.migrate?.()) ?? []
      io.out(`${displayName(url)}: ${applied.length ? `applied version${applied.length === 1 ? '' : 's'} ${applied.join(', ')}` : 'up to date'}`)
    } finally {
      await store.close()
    }
    return 0
  },
}
