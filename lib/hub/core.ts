// What a session handle (handle.ts) and a routed reply (remoteReply.ts) need of their hub, apart
// from the hub itself (hub.ts makes one), so neither imports the hub that makes them.
import { AgentError } from '../core/errors.js'
import type { AgentEvent } from '../core/events.js'
import type { Command } from './commands.js'
import type { LiveSession } from './live.js'
import type { HubOptions } from './types.js'

/** What a handle needs from its hub. */
export interface HubCore {
  readonly options: HubOptions
  /** The live session, opened here if no process owns it; SESSION_BUSY if another process does. */
  acquire(session_id: string): Promise<LiveSession>
  use(session: LiveSession): () => void
  /** Applies a command where the session is owned (here, or routed to its owner). */
  run(session_id: string, command: Command): Promise<AgentEvent[]>
  live(session_id: string): LiveSession | undefined
}

/** Another process owns the session (a writer in this process is not routed to). */
export const isBusyElsewhere = (error: unknown): boolean =>
  error instanceof AgentError && error.code === 'SESSION_BUSY' && !(error.data as { here?: boolean } | undefined)?.here
