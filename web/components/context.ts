// What deep components need from the page without threading it through every memoised level: the
// open session's actions (absent when showing the past, which is read-only) and its tools.
import { createContext } from 'preact'
import type { ToolInfo } from '../api.js'
import type { LiveSession } from '../live.js'

export interface SessionContext {
  live: LiveSession | null
  tools: ToolInfo[]
}

export const Session = createContext<SessionContext>({ live: null, tools: [] })
