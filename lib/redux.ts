// agentlog/redux: the agent's state in a Redux store. `agentsReducer` holds the followed sessions'
// states (each `replay(log)`, folded with the agent's own reducers); `agentsMiddleware` (or
// `agentEpic` for redux-observable) runs the agents and turns `agentActions` into their calls.
// Redux, Redux Toolkit and redux-observable are optional peers: nothing here imports them.
export { agentActions, isCommand, isEventAction, PREFIX, type AgentlogAction, type CommandAction, type CommandName, type CommandPayloads, type EventAction, type FactAction, type FollowedAction, type FollowFailedAction, type RefusedAction, type Refusal, type UnfollowedAction, type ActionCreator, type AnyAction } from './redux/actions.js'
export { agentsReducer, initialAgentsState, DEFAULT_SLICE_KEY, type AgentsState } from './redux/slice.js'
export { selectSession, selectSessionIds, selectStatus, selectWaitingFor, selectReplyMsg } from './redux/selectors.js'
export { agentsMiddleware, type AgentsMiddleware } from './redux/middleware.js'
export { agentEpic, type AgentEpic } from './redux/epic.js'
export type { SourceOptions } from './redux/options.js'
export type { SessionSource } from './redux/sources.js'
