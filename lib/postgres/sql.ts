// Names in the database: the schema (checked, then quoted), its tables, the NOTIFY channels (kept
// under PostgreSQL's 63-byte identifier limit), and the advisory-lock key of a session's lease. One
// place for them, so the store, the migrations and the CLI agree.
import crypto from 'node:crypto'
import { AgentError, describe } from '../core/errors.js'

const VALID_SCHEMA = /^[a-z_][a-z0-9_]{0,62}$/

export interface Names {
  schema: string
  sessions: string
  events: string
  snapshots: string
  requests: string
  migrations: string
  /** NOTIFY channel of appends: payload "SESSION_ID LAST_SEQ". */
  eventsChannel: string
  /** NOTIFY channel of routed requests: "n SESSION_ID" (a new request), "d ID" (answered). */
  requestsChannel: string
}

export const checkSchema = (schema: unknown): string => {
  if (typeof schema === 'string' && VALID_SCHEMA.test(schema)) return schema
  throw new AgentError('INVALID_OPTION', `postgresStore: schema must be a lower-case SQL name (letters, digits, "_", at most 63, not starting with a digit); received ${describe(schema)}.`)
}

export const names = (schema: string): Names => {
  const q = `"${checkSchema(schema)}"`
  const tag = schema.length <= 40 ? schema : crypto.createHash('sha1').update(schema).digest('hex').slice(0, 16)
  return {
    schema: q,
    sessions: `${q}.sessions`,
    events: `${q}.events`,
    snapshots: `${q}.snapshots`,
    requests: `${q}.requests`,
    migrations: `${q}.schema_migrations`,
    eventsChannel: `agentlog_${tag}_events`,
    requestsChannel: `agentlog_${tag}_requests`,
  }
}

/** The text whose 64-bit hash (hashtextextended) keys a session's advisory lock. */
export const leaseKey = (schema: string, session_id: string): string => `agentlog:${schema}:${session_id}`

/** LISTEN takes an identifier, not a parameter. */
export const quoteIdent = (name: string): string => `"${name.replace(/"/g, '""')}"`
