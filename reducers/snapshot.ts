// A snapshot's state as every store saves it: the JSON text {"fold": FOLD_VERSION, "state": ...}.
// A snapshot is a cache of the fold, so it is resumed only when the fold that made it is this one:
// one of another fold version (or of none: saved before fold versions) is ignored with the reason,
// the log is replayed from the start, and the next snapshot replaces it.
import { FOLD_VERSION, initialState, type AgentState } from './state.js'

/** The text a store saves for the state (its checksum, when it keeps one, is of this text). */
export const snapshotText = (state: AgentState): string => JSON.stringify({ fold: FOLD_VERSION, state })

const stateKeys = Object.keys(initialState()).sort().join()

/** The state a snapshot made after event `seq` holds, or why it cannot be resumed. */
export const snapshotState = (text: string, seq: number): { state: AgentState } | { ignored: string } => {
  let saved: unknown
  try {
    saved = JSON.parse(text)
  } catch {
    return { ignored: 'damaged: its state is not JSON' }
  }
  if (typeof saved !== 'object' || saved === null || Array.isArray(saved)) return { ignored: 'damaged: its state is not an object' }
  const { fold, state } = saved as { fold?: unknown; state?: AgentState }
  if (fold !== FOLD_VERSION)
    return { ignored: `made by ${fold === undefined ? 'an agentlog without fold versions' : `fold version ${JSON.stringify(fold)}`}, not the current fold version ${FOLD_VERSION}` }
  if (typeof state !== 'object' || state === null || Array.isArray(state)) return { ignored: 'damaged: its state is not an object' }
  if (state.seq !== seq) return { ignored: `damaged: its state is at event ${state.seq} but it says ${seq}` }
  if (Object.keys(state).sort().join() !== stateKeys) return { ignored: 'written by another agentlog version (the state has other fields than this fold makes)' }
  return { state }
}
