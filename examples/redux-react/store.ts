// The page's Redux store: the agents slice over the server (a remoteAgent per followed session) with
// RTK's default checks on, and a recorder that keeps every action with the agents state after it,
// which the page's DevTools-like log shows (kept outside the store: references, no copies).
import { configureStore, type Middleware } from '@reduxjs/toolkit'
import { agentsMiddleware, agentsReducer, type AgentsState, type AnyAction } from 'agentlog/redux'

export interface Recorded { n: number; action: AnyAction; agents: AgentsState }

/** The actions seen so far (the newest last), for useSyncExternalStore. */
export const recorder = (() => {
  let entries: Recorded[] = []
  const listeners = new Set<() => void>()
  let scheduled = false
  const middleware: Middleware = (api) => (next) => (action) => {
    const result = next(action)
    entries = [...entries.slice(-199), { n: (entries.at(-1)?.n ?? 0) + 1, action: action as AnyAction, agents: api.getState().agents }]
    if (!scheduled) {
      scheduled = true
      queueMicrotask(() => {
        scheduled = false
        for (const listener of listeners) listener()
      })
    }
    return result
  }
  return {
    middleware,
    get: () => entries,
    subscribe: (listener: () => void) => {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
  }
})()

export const makeStore = (url: string) => configureStore({
  reducer: { agents: agentsReducer },
  middleware: (getDefault) => getDefault().concat(agentsMiddleware({ remote: { url } }), recorder.middleware),
})

export type AppStore = ReturnType<typeof makeStore>
export type RootState = ReturnType<AppStore['getState']>
