// agentsReducer: the slice of the sessions the app follows, `{ sessions: { [session_id]: AgentState } }`.
// A session's state is set once from `agentlog/followed` (its state when it was followed), then each
// `agentlog/event/*` is folded into it with the agent's own rootReducer, so it is `replay(log)`.
// An event that is not the next of its session (a re-dispatched or repeated one) is ignored, and so
// is a snapshot older than the state held. What a delta does not change is frozen (freeze.ts).
import { rootReducer } from '../../reducers/root.js'
import type { AgentState } from '../../reducers/state.js'
import { isEventAction, type AnyAction } from './actions.js'
import { freezeSettled } from './freeze.js'

export interface AgentsState {
  sessions: Record<string, AgentState>
}

export const initialAgentsState = (): AgentsState => ({ sessions: {} })

/** The key the docs mount the slice under (any other works: action types never depend on it). */
export const DEFAULT_SLICE_KEY = 'agents'

const withSession = (state: AgentsState, session_id: string, session: AgentState): AgentsState =>
  ({ ...state, sessions: { ...state.sessions, [session_id]: session } })

export const agentsReducer = (state: AgentsState = initialAgentsState(), action: AnyAction): AgentsState => {
  if (isEventAction(action)) {
    const { session_id, event } = action.payload
    const session = Object.hasOwn(state.sessions, session_id) ? state.sessions[session_id] : undefined
    if (!session || event.metadata.seq !== session.seq + 1) return state
    return withSession(state, session_id, freezeSettled(rootReducer(session, event)))
  }
  switch (action.type) {
    case 'agentlog/followed': {
      const { session_id, state: snapshot } = action.payload as { session_id: string; state: AgentState }
      const held = Object.hasOwn(state.sessions, session_id) ? state.sessions[session_id] : undefined
      if (held && held.seq >= snapshot.seq) return state
      return withSession(state, session_id, freezeSettled({ ...snapshot }))
    }
    case 'agentlog/unfollowed':
    case 'agentlog/followFailed': {
      const session_id = action.type === 'agentlog/unfollowed' ? (action.payload as { session_id: string }).session_id : (action.meta as { session_id: string }).session_id
      if (!Object.hasOwn(state.sessions, session_id)) return state
      const { [session_id]: _, ...sessions } = state.sessions
      return { ...state, sessions }
    }
    default:
      return state
  }
}
