// Redux DevTools, when the browser extension is present: each event goes to it as an action with
// the state after it, and a jump to a past state there is handed to the page (shown read-only).
import type { AgentEvent } from '../lib/core/events.js'
import type { AgentState } from '../reducers/state.js'

interface DevToolsConnection {
  init(state: unknown): void
  send(action: unknown, state: unknown): void
  subscribe(listener: (message: { type: string; payload?: { type: string }; state?: string }) => void): (() => void) | void
  unsubscribe?(): void
}
interface DevToolsExtension { connect(options: { name: string; maxAge?: number }): DevToolsConnection }

export interface DevTools {
  event(event: AgentEvent, state: AgentState): void
  close(): void
}

const JUMPS = new Set(['JUMP_TO_STATE', 'JUMP_TO_ACTION'])

export const connectDevTools = (name: string, initial: AgentState, onJump: (state: AgentState) => void): DevTools | null => {
  const extension = (globalThis as { __REDUX_DEVTOOLS_EXTENSION__?: DevToolsExtension }).__REDUX_DEVTOOLS_EXTENSION__
  if (!extension) return null
  // maxAge bounds what the extension keeps: it holds a copy of the state for each action.
  const connection = extension.connect({ name, maxAge: 500 })
  connection.init(initial)
  const stop = connection.subscribe((message) => {
    if (message.type === 'DISPATCH' && message.payload && JUMPS.has(message.payload.type) && message.state)
      onJump(JSON.parse(message.state) as AgentState)
  })
  return {
    event: (event, state) => connection.send(event, state),
    close: () => (typeof stop === 'function' ? stop() : connection.unsubscribe?.()),
  }
}
