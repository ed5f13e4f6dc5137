// Names on the NATS server: the stream of events, the KV buckets (sessions, owners, leases,
// requests, snapshots) and the subjects of one store, all under one prefix; and a session id as a
// subject token or KV key (a session id may hold "." and "_", which are escaped: "_" → "__",
// "." → "_d", so that distinct ids stay distinct and no id makes an extra subject token).
import { AgentError, describe } from '../core/errors.js'

const VALID_PREFIX = /^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$/

export interface Names {
  prefix: string
  /** The stream of every session's events; one subject per session. */
  stream: string
  /** KV: session id → { created_at, metadata }. */
  sessions: string
  /** KV with a TTL: owner (process) id → alive; renewed while the process runs. */
  owners: string
  /** KV: session id → the owner id that holds its lease. */
  leases: string
  /** KV with a TTL: session.request id → a routed request and, once answered, its outcome. */
  requests: string
  /** KV: session id → its latest snapshot. */
  snapshots: string
  /** The subject of a session's events. */
  events(key: string): string
  /** The subject its owner answers routed requests on. */
  route(key: string): string
  /** The subject an owner (a process) answers pings on while it runs. */
  owner(id: string): string
}

export const checkPrefix = (prefix: unknown): string => {
  if (typeof prefix === 'string' && VALID_PREFIX.test(prefix)) return prefix
  throw new AgentError('INVALID_OPTION', `natsStore: name must be 1 to 32 letters, digits, "_" or "-", starting with a letter or digit; received ${describe(prefix)}.`)
}

export const names = (prefix: string): Names => {
  const p = checkPrefix(prefix)
  return {
    prefix: p,
    stream: `${p}_events`,
    sessions: `${p}_sessions`,
    owners: `${p}_owners`,
    leases: `${p}_leases`,
    requests: `${p}_requests`,
    snapshots: `${p}_snapshots`,
    events: (key) => `${p}.ev.${key}`,
    route: (key) => `${p}.rq.${key}`,
    owner: (id) => `${p}.owner.${id}`,
  }
}

/** A (valid) session id as one subject token and KV key. */
export const keyOf = (session_id: string): string => session_id.replace(/[_.]/g, (c) => (c === '_' ? '__' : '_d'))

export const idOf = (key: string): string => key.replace(/_(_|d)/g, (_, c: string) => (c === '_' ? '_' : '.'))
