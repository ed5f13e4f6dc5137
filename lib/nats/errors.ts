// NATS's failures as agentlog's coded errors: a publish refused for its expected last subject
// sequence (JetStream error 10071) is a stale or concurrent writer, LOG_CONFLICT; a server that
// cannot be reached, a lost connection, a timeout or a refused request is LOG_UNAVAILABLE.
import { AgentError } from '../core/errors.js'

interface NatsLikeError { code?: string | number; message?: string; api_error?: { err_code?: number }; name?: string }

/** A "wrong last sequence" refusal: another writer appended first, or a KV key changed since read. */
export const isConflict = (error: unknown): boolean => {
  const e = error as NatsLikeError
  return e?.code === 10071 || e?.api_error?.err_code === 10071 || /wrong last sequence/i.test(e?.message ?? '')
}

/** No process answers on the subject (the owner is gone, or has not subscribed yet). */
export const isNoResponders = (error: unknown): boolean => {
  const e = error as NatsLikeError
  return e?.name === 'NoRespondersError' || /no responders/i.test(e?.message ?? '')
}

export const isTimeout = (error: unknown): boolean => {
  const e = error as NatsLikeError
  return e?.name === 'TimeoutError' || /timeout/i.test(e?.message ?? '')
}

export const unavailable = (error: unknown, doing: string): AgentError => {
  if (error instanceof AgentError) return error
  const e = error as NatsLikeError
  const what = `${e?.message ?? String(error)}`
  if (/ECONNREFUSED|CONNECTION_REFUSED|connection refused|ENOTFOUND|closed|disconnect/i.test(`${e?.code ?? ''} ${what}`))
    return new AgentError('LOG_UNAVAILABLE', `NATS could not be reached while ${doing}: ${what}. Check that nats-server runs with JetStream (-js) and the server URL; nothing was acknowledged that is not stored.`, { nats: e?.code })
  return new AgentError('LOG_UNAVAILABLE', `NATS failed while ${doing}: ${what}.`, { nats: e?.code })
}
