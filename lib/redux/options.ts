// The sources agentsMiddleware and agentEpic take: local agents (or remoteAgents) by session id,
// followed from the start; a hub, whose sessions are followed on `follow`; or a server's URL, a
// remoteAgent made per followed session (closed on unfollow). Bad options throw at setup, never
// inside `dispatch`.
import type { Agent } from '../agent/agent.js'
import { AgentError, describe } from '../core/errors.js'
import { remoteAgent, type RemoteAgent } from '../client/remoteAgent.js'
import type { Hub } from '../hub/types.js'
import { hubSource, remoteSource, sourceOf, type SessionSource } from './sources.js'

export type SourceOptions =
  | { agents: Record<string, Agent | RemoteAgent> }
  | { hub: Hub }
  | { remote: { url: string; token?: string; fetch?: typeof globalThis.fetch } }

export interface SessionSources {
  /** The sessions followed from the start (those of `agents`). */
  initial: string[]
  /** The source of a session; NOT_FOUND for one `agents` does not name. */
  open(session_id: string): SessionSource
}

export const sessionSources = (options: SourceOptions): SessionSources => {
  const given = typeof options === 'object' && options !== null ? (['agents', 'hub', 'remote'] as const).filter((key) => key in options) : []
  if (given.length !== 1)
    throw new AgentError('INVALID_OPTION', `agentlog/redux needs one source: { agents }, { hub } or { remote: { url, token? } }; received ${describe(options)}.`)
  if ('agents' in options) {
    const { agents } = options
    if (typeof agents !== 'object' || agents === null) throw new AgentError('INVALID_OPTION', `agents must map session ids to agents; received ${describe(agents)}.`)
    return {
      initial: Object.keys(agents),
      open: (session_id) => {
        if (!Object.hasOwn(agents, session_id)) throw new AgentError('NOT_FOUND', `No agent for session ${JSON.stringify(session_id)}: the middleware was given agents for ${Object.keys(agents).map((id) => JSON.stringify(id)).join(', ') || 'no session'}.`)
        return sourceOf(agents[session_id])
      },
    }
  }
  if ('hub' in options) {
    const { hub } = options
    if (typeof hub?.session !== 'function') throw new AgentError('INVALID_OPTION', `hub must be a Hub (createHub); received ${describe(hub)}.`)
    return { initial: [], open: (session_id) => hubSource(hub, session_id) }
  }
  const { remote } = options
  if (typeof remote?.url !== 'string') throw new AgentError('INVALID_OPTION', `remote needs { url, token? }; received ${describe(remote)}.`)
  return {
    initial: [],
    open: (session_id) => remoteSource(remoteAgent({ url: remote.url, session: session_id, token: remote.token, fetch: remote.fetch }), true),
  }
}
