// The actions of agentlog/redux, as Flux Standard Actions (`type`, `payload`, `meta`, `error`):
// commands are requests the app dispatches (`agentlog/send`, ...), each with a `meta.request_id`
// so that it is carried out once; facts say what happened (`agentlog/followed` with a session's
// state, `agentlog/event/TYPE` with one agent event, `agentlog/refused` and
// `agentlog/followFailed` as error actions). Every type starts with `agentlog/`; all plain JSON.
import { nanoid } from 'nanoid'
import type { AgentInput } from '../agent/agent.js'
import type { CallRef } from '../subagents/tree.js'
import type { AgentEvent } from '../core/events.js'
import type { AgentState } from '../../reducers/state.js'

export const PREFIX = 'agentlog/'

/** Any Redux action (what a middleware or an epic may see). */
export interface AnyAction {
  type: string
  payload?: unknown
  meta?: unknown
  error?: boolean
}

export interface CommandMeta {
  /** Made by the action creator: a command with an id already handled is not carried out again (DevTools safety). */
  request_id: string
}

export interface CommandPayloads {
  send: { session_id: string; input: AgentInput }
  steer: { session_id: string; input: AgentInput }
  queue: { session_id: string; input: AgentInput }
  /** `when`: passed on to the source's `interrupt({ when })` (absent: stop now). */
  stop: { session_id: string; when?: string }
  approve: { session_id: string; call: CallRef; input?: Record<string, unknown> }
  deny: { session_id: string; call: CallRef; reason?: string }
  submitResult: { session_id: string; call: CallRef; result: unknown }
  follow: { session_id: string }
  unfollow: { session_id: string }
}

export type CommandName = keyof CommandPayloads

export type CommandAction<K extends CommandName = CommandName> = K extends CommandName
  ? { type: `agentlog/${K}`; payload: CommandPayloads[K]; meta: CommandMeta }
  : never

/** The state of a session the slice starts from (a follow: its current state, once). */
export interface FollowedAction { type: 'agentlog/followed'; payload: { session_id: string; state: AgentState } }
/** One event of a followed session, in log order. */
export interface EventAction { type: `agentlog/event/${string}`; payload: { session_id: string; event: AgentEvent } }
export interface UnfollowedAction { type: 'agentlog/unfollowed'; payload: { session_id: string } }

/** Why a command was not carried out (a coded refusal, as the agent's AgentError). */
export interface Refusal { name: string; code: string; message: string }
export interface RefusedAction {
  type: 'agentlog/refused'
  payload: Refusal
  error: true
  meta: { session_id: string; command: string; request_id: string | null }
}
/** A followed session's events stopped (the session is gone, the server refused): it is no longer followed. */
export interface FollowFailedAction { type: 'agentlog/followFailed'; payload: Refusal; error: true; meta: { session_id: string } }

export type FactAction = FollowedAction | EventAction | UnfollowedAction | RefusedAction | FollowFailedAction
export type AgentlogAction = CommandAction | FactAction

export interface ActionCreator<K extends CommandName> {
  (payload: CommandPayloads[K]): CommandAction<K>
  readonly type: `agentlog/${K}`
  match(action: unknown): action is CommandAction<K>
}

const commandNames: CommandName[] = ['send', 'steer', 'queue', 'stop', 'approve', 'deny', 'submitResult', 'follow', 'unfollow']
const commandTypes = new Set<string>(commandNames.map((name) => PREFIX + name))

const isAction = (action: unknown): action is AnyAction =>
  typeof action === 'object' && action !== null && typeof (action as AnyAction).type === 'string'

const creator = <K extends CommandName>(name: K): ActionCreator<K> => {
  const type = `${PREFIX}${name}` as `agentlog/${K}`
  const create = (payload: CommandPayloads[K]) => ({ type, payload, meta: { request_id: nanoid() } }) as CommandAction<K>
  return Object.assign(create, { type, match: (action: unknown): action is CommandAction<K> => isAction(action) && action.type === type })
}

/** The action creators of every command: `store.dispatch(agentActions.send({ session_id, input }))`. */
export const agentActions: { [K in CommandName]: ActionCreator<K> } = {
  send: creator('send'), steer: creator('steer'), queue: creator('queue'), stop: creator('stop'),
  approve: creator('approve'), deny: creator('deny'), submitResult: creator('submitResult'),
  follow: creator('follow'), unfollow: creator('unfollow'),
}

/** A command action (any of agentActions'), with a session id. */
export const isCommand = (action: unknown): action is CommandAction =>
  isAction(action) && commandTypes.has(action.type) && !action.error && typeof (action.payload as { session_id?: unknown } | undefined)?.session_id === 'string'

export const isEventAction = (action: unknown): action is EventAction => isAction(action) && action.type.startsWith('agentlog/event/')

export const followed = (session_id: string, state: AgentState): FollowedAction => ({ type: 'agentlog/followed', payload: { session_id, state } })
export const eventAction = (session_id: string, event: AgentEvent): EventAction => ({ type: `agentlog/event/${event.type}`, payload: { session_id, event } })
export const unfollowed = (session_id: string): UnfollowedAction => ({ type: 'agentlog/unfollowed', payload: { session_id } })

export const refused = (command: AnyAction & { payload: { session_id: string } }, refusal: Refusal): RefusedAction => ({
  type: 'agentlog/refused',
  payload: refusal,
  error: true,
  meta: { session_id: command.payload.session_id, command: command.type, request_id: (command.meta as Partial<CommandMeta> | undefined)?.request_id ?? null },
})

export const followFailed = (session_id: string, refusal: Refusal): FollowFailedAction => ({ type: 'agentlog/followFailed', payload: refusal, error: true, meta: { session_id } })
