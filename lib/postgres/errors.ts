// PostgreSQL's failures as agentlog's coded errors: a stale or concurrent writer (23505 on the
// events key) is LOG_CONFLICT; a server that cannot be reached, a lost connection, a refused
// statement or a table changed behind the store's back is LOG_UNAVAILABLE, with what to do.
import { AgentError } from '../core/errors.js'

interface PgLikeError { code?: string; message?: string; address?: string; port?: number }

const CONNECTION = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', '57P01', '57P02', '57P03', '08000', '08003', '08006', '08001', '08004'])
const SCHEMA = new Set(['42P01', '42703', '42804', '42883', '3F000', '22P02', '23502', '42P10'])

/** A unique violation (23505), raw or already wrapped by `unavailable`. */
export const isConflict = (error: unknown): boolean =>
  (error as PgLikeError)?.code === '23505' || (error instanceof AgentError && (error.data as { pg?: string } | undefined)?.pg === '23505')

/** A failure of the connection itself (the server gone, the backend terminated), not of one statement. */
export const isConnectionLoss = (error: unknown): boolean => {
  const e = error as PgLikeError
  return CONNECTION.has(e?.code ?? '') || /Connection terminated|connection.*(closed|ended)|not queryable|Client was closed/i.test(e?.message ?? '')
}

export const unavailable = (error: unknown, doing: string): AgentError => {
  if (error instanceof AgentError) return error
  const e = error as PgLikeError
  const what = `${e?.message ?? String(error)}${e?.code ? ` (${e.code})` : ''}`
  if (SCHEMA.has(e?.code ?? ''))
    return new AgentError('LOG_UNAVAILABLE', `PostgreSQL refused ${doing}: ${what}. The store's tables are missing or were changed; run await store.migrate() (or agentlog migrate), and do not alter its tables by hand.`, { pg: e?.code })
  if (e?.code === '3D000' || e?.code === '28P01' || e?.code === '28000')
    return new AgentError('LOG_UNAVAILABLE', `PostgreSQL refused the connection while ${doing}: ${what}. Check the database name, user and password in the connection string.`, { pg: e?.code })
  if (isConnectionLoss(error))
    return new AgentError('LOG_UNAVAILABLE', `PostgreSQL could not be reached while ${doing}: ${what}. Check that the server is running and the connection string; nothing was acknowledged that is not stored.`, { pg: e?.code })
  return new AgentError('LOG_UNAVAILABLE', `PostgreSQL failed while ${doing}: ${what}.`, { pg: e?.code })
}
