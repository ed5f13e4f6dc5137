// What the slice owns and freezes. Events and states reach it as copies (`copyJson`: the agent's
// own objects are never frozen or shared with the app), and every field of a session's state (the
// context, the reply message and its blocks, ...) is frozen, never the state object itself nor the
// slice: Redux Toolkit's immutability check skips frozen values and its serializability check
// caches them, so a streamed delta costs them the few objects it made, not a walk over the context.
import type { AgentState } from '../../reducers/state.js'

/** A copy of a JSON value (objects, arrays, primitives; an `undefined` field is kept, as structuredClone does, at a fraction of its cost). */
export const copyJson = <T>(value: T): T => {
  if (typeof value !== 'object' || value === null) return value
  if (Array.isArray(value)) return value.map(copyJson) as T
  const copy: Record<string, unknown> = {}
  for (const key in value) copy[key] = copyJson((value as Record<string, unknown>)[key])
  return copy as T
}

/** Freezes `value` and what it holds, stopping at what is frozen already (frozen here means deeply; being frozen before its children are visited, an object is its own visited mark). */
const deepFreeze = (value: unknown): void => {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return
  Object.freeze(value)
  for (const key in value) deepFreeze((value as Record<string, unknown>)[key])
}

export const freezeSettled = (state: AgentState): AgentState => {
  for (const key in state) deepFreeze((state as unknown as Record<string, unknown>)[key])
  return state
}
