// What deep components need from the page without threading it through every memoised level: the
// open session's actions (absent when showing the past, which is read-only) and its tools.
import { createContext } from 'preact'
import type { ToolInfo } from '../api.js'
import type { LiveSession } from '../live.js'
import type { WaitingCall } from '../../lib/agent/text.js'
import type { AgentState } from '../../reducers/state.js'

export interface SessionContext {
  live: LiveSession | null
  tools: ToolInfo[]
  /** The calls the open session's sub-agents wait for (live view only). */
  descendantWaits: readonly WaitingCall[]
  /** Shows a sub-agent's log in the timeline (absent where the page has no timeline). */
  showLog?: (session_id: string) => void
  /** Draws a read-only conversation (a sub-agent's, inside its card; given here so the card imports no Conversation, which holds cards). */
  conversation?: (state: AgentState) => unknown
}

export const Session = createContext<SessionContext>({ live: null, tools: [], descendantWaits: [] })
