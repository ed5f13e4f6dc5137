// The fold the store runs: rootReducer, writing into the state it returned last while no one
// outside the store can hold that state. The store calls `seal()` whenever it hands a state out
// (a state$ subscriber is called, getState(), state$.value); until then the state, and every
// object a reduction since the last seal created for it, are reachable from nothing else. Two
// writes use that (like a Clojure transient, the writes land only where no reader can reach):
// - a streamed delta into the block the previous delta created is appended to that block's text,
//   and the same state object is returned with seq + 1 (no state, message, array or block copied);
// - the reply's content array that such a reduction copied is written in place by the next ones
//   (a block added, replaced or closed: reducers/blocks.ts `withWritableContent`), not copied again.
// After a seal the next change copies as the pure rootReducer does, so a state anyone saw never
// changes; the result always equals rootReducer's (replay(log) deep-equals the state).
import type { AgentEvent } from '../lib/core/events.js'
import type { Block, Msg, TextBlock, ThinkingBlock, ToolCallBlock, ToolResultBlock } from '../lib/core/messages.js'
import { findBlockIndex, withWritableContent } from './blocks.js'
import { rootReducer } from './root.js'
import type { AgentState } from './state.js'

export interface InPlaceReducer {
  (state: AgentState, event: AgentEvent): AgentState
  /** The state it returned last is now visible outside the store: never write into it again. */
  seal(): void
}

type DeltaEvent = Extract<AgentEvent, { type: 'TEXT_BLOCK_DELTA' | 'THINKING_BLOCK_DELTA' | 'TOOL_CALL_DELTA' | 'TOOL_RESULT_TEXT_DELTA' }>

/** The state and block that only the store holds, and which delta stream writes into them. */
interface Owned {
  state: AgentState
  block: Block
  type: DeltaEvent['type']
  id: string
}

export const inPlaceReducer = (): InPlaceReducer => {
  /** The state returned last, while no one outside the store has seen it. */
  let ownedState: AgentState | null = null
  /** Its reply message's content array, when a reduction since the last seal made it. */
  let ownedContent: Block[] | null = null
  /** The block the last delta wrote, when that reduction made it. */
  let owned: Owned | null = null
  const reduce = (state: AgentState, event: AgentEvent): AgentState => {
    if (owned !== null && owned.state === state && event.type === owned.type && deltaTarget(event as DeltaEvent) === owned.id && (event as DeltaEvent).reply_id === state.reply_id) {
      appendDelta(owned.block, event as DeltaEvent)
      state.seq++
      return state
    }
    const [next, writable] = withWritableContent(state === ownedState ? ownedContent : null, () => rootReducer(state, event))
    ownedState = next
    ownedContent = writable !== null && next.reply_msg?.content === writable ? writable : null
    owned = isDelta(event) && next.reply_msg !== state.reply_msg ? own(next, event) : null
    return next
  }
  const seal = () => {
    ownedState = ownedContent = owned = null
  }
  return Object.assign(reduce, { seal })
}

const isDelta = (event: AgentEvent): event is DeltaEvent =>
  event.type === 'TEXT_BLOCK_DELTA' || event.type === 'THINKING_BLOCK_DELTA' || event.type === 'TOOL_CALL_DELTA' || event.type === 'TOOL_RESULT_TEXT_DELTA'

const deltaTarget = (event: DeltaEvent): string => ('block_id' in event ? event.block_id : event.tool_call_id)

const blockType = { TEXT_BLOCK_DELTA: 'text', THINKING_BLOCK_DELTA: 'thinking', TOOL_CALL_DELTA: 'tool_call', TOOL_RESULT_TEXT_DELTA: 'tool_result' } as const

/**
 * After a pure reduction of a delta that changed the reply message: the block it wrote is fresh (the
 * delta paths copy the state, the message, the content array and that one block), so the state
 * and the block are owned. A tool result whose output is a list of blocks is not (its pieces are shared).
 */
const own = (next: AgentState, event: DeltaEvent): Owned | null => {
  const msg = next.reply_msg as Msg
  const index = findBlockIndex(msg, blockType[event.type], deltaTarget(event))
  const block = msg.content[index]
  if (!block || (block.type === 'tool_result' && typeof block.output !== 'string')) return null
  return { state: next, block, type: event.type, id: deltaTarget(event) }
}

/** The same write the pure delta paths make, into the owned block. */
const appendDelta = (block: Block, event: DeltaEvent) => {
  switch (event.type) {
    case 'TEXT_BLOCK_DELTA':
      ;(block as TextBlock).text += event.delta
      return
    case 'THINKING_BLOCK_DELTA':
      ;(block as ThinkingBlock).thinking += event.delta
      return
    case 'TOOL_CALL_DELTA':
      ;(block as ToolCallBlock).input += event.delta
      return
    case 'TOOL_RESULT_TEXT_DELTA':
      ;(block as ToolResultBlock & { output: string }).output += event.delta
  }
}
