// Where the inspection commands read from: a log file, or a session of a store: a sessions
// directory, a PostgreSQL URL or a NATS URL, with `--session ID` (and `--schema NAME`: Postgres's
// schema, or the NATS store's name; default "agentlog"). The Postgres and NATS stores are loaded
// only when such a URL is given, so files need neither `pg` nor the NATS client.
import fs from 'node:fs'
import { AgentError } from '../core/errors.js'
import type { AgentEvent } from '../core/events.js'
import type { SessionStore } from '../hub/types.js'
import { directoryStore } from '../stores/directory.js'
import { loadLog, UsageError, type Io, type Parsed } from './command.js'

export const SOURCE_OPTIONS = { session: { type: 'string' }, schema: { type: 'string' } } as const
export const SOURCE_USAGE = '(FILE | DIR --session ID | postgres://… | nats://… --session ID [--schema NAME])'

export const isDatabaseUrl = (text: string): boolean => /^postgres(ql)?:\/\//.test(text)

/** One NATS server URL, or several joined by commas (a cluster). */
export const isNatsUrl = (text: string): boolean => /^(nats|tls):\/\//.test(text)

/** The URL without its password, for messages. */
export const displayName = (source: string): string => {
  if (!isDatabaseUrl(source) && !isNatsUrl(source)) return source
  try {
    const url = new URL(source)
    if (url.password) url.password = '***'
    return url.toString()
  } catch {
    return source
  }
}

/** A session store: a PostgreSQL URL, a NATS URL, or a directory (created only when `create`). */
export const openStore = async (spec: string, schema: string | undefined, create = false): Promise<SessionStore & { migrate?: () => Promise<number[]> }> => {
  if (isDatabaseUrl(spec)) {
    const { postgresStore } = await import('../postgres/store.js')
    return postgresStore({ connectionString: spec, schema })
  }
  if (isNatsUrl(spec)) {
    const { natsStore } = await import('../nats/store.js').catch((error: unknown) => {
      throw new AgentError('MISSING_DEPENDENCY', `A nats:// store needs the NATS client: npm install @nats-io/transport-node @nats-io/jetstream @nats-io/kv (${(error as Error).message}).`)
    })
    return natsStore({ servers: spec.split(','), name: schema })
  }
  if (schema !== undefined) throw new UsageError('--schema applies to a postgres:// or nats:// URL only')
  if (!create && !(fs.existsSync(spec) && fs.statSync(spec).isDirectory()))
    throw new AgentError('NOT_FOUND', `${spec} is not a sessions directory (give a directory that directoryStore wrote, a postgres:// URL or a nats:// URL).`)
  return directoryStore(spec)
}

/** The events of the source named by the first positional argument and the options. */
export const loadSource = async (source: string, values: Parsed['values'], io: Io): Promise<{ label: string; events: AgentEvent[] }> => {
  const session = values.session as string | undefined
  const schema = values.schema as string | undefined
  const isStore = isDatabaseUrl(source) || isNatsUrl(source) || (fs.existsSync(source) && fs.statSync(source).isDirectory())
  if (!isStore) {
    if (session !== undefined || schema !== undefined) throw new UsageError('--session and --schema name a session of a store (a directory, a postgres:// or a nats:// URL), not of a log file')
    return { label: source, events: loadLog(source, io) }
  }
  if (session === undefined) throw new UsageError(`${displayName(source)} is a session store: name the session with --session ID (agentlog sessions ${displayName(source)} lists them)`)
  const store = await openStore(source, schema)
  try {
    return { label: `${displayName(source)} session ${session}`, events: await store.read(session) }
  } catch (error) {
    if (!(error instanceof AgentError) || error.code !== 'NOT_FOUND') throw error
    throw new AgentError('NOT_FOUND', `${displayName(source)} has no session ${session}: agentlog sessions ${displayName(source)} lists the sessions it has.`)
  } finally {
    await store.close()
  }
}
