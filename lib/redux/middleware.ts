// agentsMiddleware: runs agentEpic inside the app's store without redux-observable. Every action
// goes to the reducers first, then to the epic; what the epic emits (the sessions' states and
// events, refusals) is dispatched. What the epic emits while the store is being built (the first
// state of the `agents` sessions) is dispatched right after, before any other action.
import { Subject } from 'rxjs'
import type { AnyAction } from './actions.js'
import { agentEpic } from './epic.js'
import type { SourceOptions } from './options.js'

/** The shape of a Redux middleware (no import of redux: it is an optional peer). */
export type AgentsMiddleware = (api: { dispatch: (action: any) => any; getState: () => any }) => (next: (action: unknown) => unknown) => (action: unknown) => unknown

export const agentsMiddleware = (options: SourceOptions): AgentsMiddleware => {
  const epic = agentEpic(options)
  return (api) => {
    const action$ = new Subject<AnyAction>()
    let early: AnyAction[] | null = []
    const flush = () => {
      if (!early) return
      const held = early
      early = null
      for (const action of held) api.dispatch(action)
    }
    epic(action$.asObservable()).subscribe((action) => (early ? early.push(action) : api.dispatch(action)))
    queueMicrotask(flush)
    return (next) => (action) => {
      flush()
      const result = next(action)
      action$.next(action as AnyAction)
      return result
    }
  }
}
