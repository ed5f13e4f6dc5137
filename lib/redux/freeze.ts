// What the slice freezes: every field of a session's state (the context, the reply message and its
// blocks, ...), never the state object itself nor the slice. Redux Toolkit's immutability check
// skips frozen values and its serializability check caches frozen ones, so a streamed delta costs
// them the few objects it made (the state, the reply message, its content array, one block), not
// a walk over the conversation; and an app cannot write into the agent's state by mistake.
import type { AgentState } from '../../reducers/state.js'

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
