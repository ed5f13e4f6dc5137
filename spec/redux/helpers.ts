// The world of the redux specs: an agent that streams, asks for approval and can be stopped, and a
// Redux Toolkit store (configureStore, default checks on) with the agents slice and middleware.
import { configureStore, type Middleware } from '@reduxjs/toolkit'
import { defineTool, scriptedModel, textOf, type AgentOptions, type AgentState, type ModelRequest, type ScriptStep } from '../../lib/index.js'
import { agentsMiddleware, agentsReducer, type AnyAction, type SourceOptions } from '../../lib/redux.js'
import { z } from 'zod'

/** A tool that asks for permission and echoes its input. */
const risky = defineTool({
  name: 'risky', description: 'Does something the user must allow', input: z.object({ n: z.number() }), permission: 'ask',
  execute: async ({ n }) => `did ${n}`,
})

let calls = 0

/**
 * What the model answers: after a tool result, a short text; to a user message containing "ask", a
 * call of the risky tool; else the words of the message back, one delta per word (a pause between
 * deltas when it contains "slow", so a spec can stop it mid-stream).
 */
const turn = (request: ModelRequest): ScriptStep[] => {
  const last = request.messages[request.messages.length - 1]
  if (last.role !== 'user') return [{ type: 'text', delta: 'Done.' }]
  const text = textOf(last)
  if (text.includes('ask')) return [{ type: 'text', delta: 'Asking. ' }, { type: 'tool_call', id: `call-${++calls}`, name: 'risky', delta: JSON.stringify({ n: calls }) }]
  const slow = text.includes('slow')
  return text.split(' ').flatMap((word): ScriptStep[] => [...(slow ? [{ type: 'delay' as const, ms: 5 }] : []), { type: 'text', delta: `${word} ` }])
}

export const agentOptions = (): Omit<AgentOptions, 'log' | 'session_id'> => ({ name: 'Friday', model: scriptedModel([turn], { onExhausted: 'repeat-last' }), tools: [risky] })

/** A store with the agents slice under `agents`, RTK's default middleware (checks on unless `checks: false`; their slowness warning only past 1 s, as a loaded machine is slow) and the agents middleware; `seen` records every action. */
export const makeStore = (sources: SourceOptions, { checks = true } = {}) => {
  const seen: AnyAction[] = []
  const record: Middleware = () => (next) => (action) => {
    seen.push(action as AnyAction)
    return next(action)
  }
  const store = configureStore({
    reducer: { agents: agentsReducer },
    middleware: (getDefault) => getDefault({ immutableCheck: checks && { warnAfter: 1000 }, serializableCheck: checks && { warnAfter: 1000 } }).concat(agentsMiddleware(sources), record),
  })
  return { store, seen }
}

/** Resolves once `check(state)` holds for the store's state (checked on every change). */
export const until = <S>(store: { getState(): S; subscribe(listener: () => void): () => void }, check: (state: S) => boolean, timeoutMs = 5000): Promise<void> =>
  new Promise((resolve, reject) => {
    if (check(store.getState())) return resolve()
    const timer = setTimeout(() => {
      unsubscribe()
      reject(new Error(`until: timed out after ${timeoutMs} ms`))
    }, timeoutMs)
    const unsubscribe = store.subscribe(() => {
      if (!check(store.getState())) return
      clearTimeout(timer)
      unsubscribe()
      resolve()
    })
  })

export const session = (state: { agents: { sessions: Record<string, AgentState> } }, id: string): AgentState | undefined => state.agents.sessions[id]

/** A tiny seeded generator (mulberry32), so a failing random conversation can be run again. */
export const random = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}
