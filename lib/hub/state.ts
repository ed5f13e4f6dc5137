// A session's state wherever its owner runs: the live agent's when this process holds the session
// (a root, or a sub-agent inside its root's live session), else folded from the store (from its
// snapshot, when the store keeps one).
import { replay } from '../../reducers/root.js'
import type { AgentState } from '../../reducers/state.js'
import type { HubCore } from './core.js'

export const sessionState = async (core: HubCore, session_id: string): Promise<AgentState> => {
  const session = core.live(session_id)
  if (session) return session.agent.state
  const store = core.options.store
  return store.state ? store.state(session_id) : replay(await store.read(session_id))
}
