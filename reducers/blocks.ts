// Immutable helpers for the reply message's blocks. Blocks being streamed sit at the end of the
// message, so lookups search backwards and cost O(1) in practice. An update copies the content
// array (a memcpy of pointers, never the conversation), except inside `withWritableContent`: there
// the array the in-place fold owns, and any copy made during that reduction, is written in place
// (reducers/inPlace.ts says why no one can see it).
import type { Block, Msg, ToolCallBlock, ToolResultBlock } from '../lib/core/messages.js'
import { withContent } from './shapes.js'

/** The index of the block of `type` with `id`, searching back from the end down to `from`. */
export const findBlockIndex = (msg: Msg, type: Block['type'], id: string, from = 0): number => {
  const content = msg.content
  for (let i = content.length - 1; i >= from; i--) if (content[i].id === id && content[i].type === type) return i
  return -1
}

export const findToolCall = (msg: Msg | null, id: string): ToolCallBlock | undefined => {
  if (!msg) return undefined
  const i = findBlockIndex(msg, 'tool_call', id)
  return i < 0 ? undefined : (msg.content[i] as ToolCallBlock)
}

/** A call's result comes after the call, so the search stops at the call. */
export const findToolResult = (msg: Msg | null, id: string): ToolResultBlock | undefined => {
  if (!msg) return undefined
  const i = findBlockIndex(msg, 'tool_result', id, Math.max(0, findBlockIndex(msg, 'tool_call', id)))
  return i < 0 ? undefined : (msg.content[i] as ToolResultBlock)
}

/**
 * The tool calls from `from` on (a round's, from its `round_start`), in order, in one pass over the
 * content: a round's calls are the only tool_call blocks after its start, each once (TOOL_CALL_START
 * is deduplicated from there), so this is what looking each id of `round_calls` up would give, at
 * the cost of one walk instead of one per call.
 */
export const toolCallsFrom = (msg: Msg | null, from: number): ToolCallBlock[] => {
  const calls: ToolCallBlock[] = []
  if (!msg) return calls
  const content = msg.content
  for (let i = from; i < content.length; i++) if (content[i].type === 'tool_call') calls.push(content[i] as ToolCallBlock)
  return calls
}

/** Inside withWritableContent: the content array the reduction may write into; null outside. */
let writable: Block[] | null = null
let inScope = false

/**
 * Runs one reduction in which `content` (an array only the caller's unpublished state holds, or
 * null) and every content array the reduction copies may be written in place. Returns the result
 * and the array that is writable at the end (fresh, or `content`).
 */
export const withWritableContent = <T>(content: Block[] | null, reduce: () => T): [T, Block[] | null] => {
  writable = content
  inScope = true
  try {
    return [reduce(), writable]
  } finally {
    writable = null
    inScope = false
  }
}

/** A fresh copy of the content array, writable for the rest of the reduction when in scope. */
const copyOf = (content: readonly Block[]): Block[] => {
  const copy = content.slice()
  if (inScope) writable = copy
  return copy
}

/** The array to write into: the writable one in place (unless frozen: immer freezes the states its produce returns), else a copy. */
const contentToWrite = (msg: Msg): Block[] =>
  msg.content === writable && !Object.isFrozen(writable) ? writable : copyOf(msg.content)

export const appendBlock = (msg: Msg, block: Block): Msg => {
  const content = contentToWrite(msg)
  content.push(block)
  return withContent(msg, content)
}

/** The message with `block` at `index` (the streaming path: no closure, at most one array copy). */
export const setBlock = (msg: Msg, index: number, block: Block): Msg => {
  const content = contentToWrite(msg)
  content[index] = block
  return withContent(msg, content)
}

/** The message with the block at `index` moved to the end (nothing copied when it is there already). */
export const moveBlockToEnd = (msg: Msg, index: number): Msg => {
  if (index < 0 || index === msg.content.length - 1) return msg
  const content = contentToWrite(msg)
  const [block] = content.splice(index, 1)
  content.push(block)
  return withContent(msg, content)
}

/** Replaces the block at `index` with `update(block)`; returns `msg` itself when nothing changed. */
export const replaceBlock = <B extends Block>(msg: Msg, index: number, update: (block: B) => B): Msg => {
  if (index < 0) return msg
  const before = msg.content[index] as B
  const after = update(before)
  return after === before ? msg : setBlock(msg, index, after)
}
