// What a model may send, checked where its chunks become events: a model (or a provider's server)
// can send any shape, and the log must only ever hold events that pass strict replay. Text deltas
// get a typeof check on the hot path (in callModel); the rarer chunks are checked here. Malformed
// output is a ModelError (the reply ends with REPLY_END(error)); a missing tool call id is
// normalised to a generated one, and an id an earlier model call of the reply used is made unique.
import type { Clock } from '../lib/core/clock.js'
import { describe, ModelError } from '../lib/core/errors.js'
import type { Msg } from '../lib/core/messages.js'
import type { ModelChunk } from '../lib/models/model.js'

export const malformed = (what: string): ModelError =>
  new ModelError({ type: 'upstream', message: `The model sent a malformed chunk: ${what}. This is a bug in the model adapter or the provider's server; the reply was stopped.` })

/** A chunk's `type`, or a ModelError when it is not an object with a known type. */
export const chunkType = (chunk: unknown): ModelChunk['type'] => {
  if (typeof chunk !== 'object' || chunk === null) throw malformed(`${describe(chunk)} instead of a chunk object`)
  const { type } = chunk as { type?: unknown }
  if (type === 'text' || type === 'thinking' || type === 'thinking_signature' || type === 'tool_call' || type === 'usage' || type === 'data') return type
  throw malformed(`a chunk of unknown type ${describe(type)}`)
}

/** Checks a data chunk: base64 `data` and a `media_type` (an image a model returns); `id` (optional) continues a block. */
export const checkData = (chunk: Extract<ModelChunk, { type: 'data' }>): { id?: string; media_type: string; data: string } => {
  const { id, media_type, data } = chunk as { id?: unknown; media_type?: unknown; data?: unknown }
  if (typeof media_type !== 'string' || media_type === '') throw malformed(`a data chunk whose media_type is ${describe(media_type)}, not a media type such as "image/png"`)
  if (typeof data !== 'string') throw malformed(`a data chunk whose data is ${describe(data)}, not a base64 string`)
  if (id !== undefined && id !== null && typeof id !== 'string') throw malformed(`a data chunk whose id is ${describe(id)}, not a string`)
  return typeof id === 'string' && id !== '' ? { id, media_type, data } : { media_type, data }
}

/** Checks a usage chunk: token counts are whole numbers of at least 0 (a string "12" is refused, not concatenated). */
export const checkUsage = (chunk: Extract<ModelChunk, { type: 'usage' }>) => {
  const counts = {
    input_tokens: chunk.input_tokens, output_tokens: chunk.output_tokens,
    cache_input_tokens: chunk.cache_input_tokens ?? 0, cache_creation_input_tokens: chunk.cache_creation_input_tokens ?? 0,
  }
  for (const [key, value] of Object.entries(counts))
    if (!Number.isSafeInteger(value) || value < 0) throw malformed(`usage ${key} is ${describe(value)}, not a whole number of tokens`)
  return counts
}

/**
 * The tool calls of one model call, by the id the model gave them. Every call stays open until
 * the model call ends, so fragments that arrive alternately (a, b, a) each go to their own call.
 */
export class ToolCalls {
  /** The model's id -> the id in the log (the same, unless the reply used it already). */
  private readonly byModelId = new Map<string, string>()
  /** The log id of the last call that came without an id (its later fragments continue it). */
  private lastUnnamed: { id: string; name: string } | null = null
  /** The log ids of the calls opened, in order. */
  readonly opened: string[] = []

  constructor(private readonly clock: Clock, private readonly usedInReply: Set<string>) {}

  /** The log id of the call a tool_call chunk belongs to, and whether it starts a new call. */
  route(chunk: Extract<ModelChunk, { type: 'tool_call' }>): { id: string; name: string; isNew: boolean; delta: string } {
    const { id, name, delta = '' } = chunk as { id?: unknown; name?: unknown; delta?: unknown }
    if (typeof delta !== 'string') throw malformed(`a tool call fragment whose delta is ${describe(delta)}, not a string`)
    if (id !== undefined && id !== null && id !== '' && typeof id !== 'string') throw malformed(`a tool call whose id is ${describe(id)}, not a string`)
    const known = typeof id === 'string' && id !== '' ? this.byModelId.get(id) : undefined
    if (known !== undefined) return { id: known, name: '', isNew: false, delta }
    const unnamed = typeof id !== 'string' || id === ''
    if (unnamed && this.lastUnnamed && (name === undefined || name === this.lastUnnamed.name)) return { id: this.lastUnnamed.id, name: '', isNew: false, delta }
    if (typeof name !== 'string' || name === '') throw malformed(`a tool call${unnamed ? '' : ` (${id as string})`} whose name is ${describe(name)}; a call needs the name of a tool`)
    let logId = unnamed ? this.clock.id() : (id as string)
    for (let n = 2; this.usedInReply.has(logId); n++) logId = `${unnamed ? this.clock.id() : id as string}-${n}`
    this.usedInReply.add(logId)
    this.opened.push(logId)
    if (unnamed) this.lastUnnamed = { id: logId, name }
    else this.byModelId.set(id as string, logId)
    return { id: logId, name, isNew: true, delta }
  }

}

/** Per agent (keyed by its deps): the tool call ids its reply in progress used, and how far its content was read. */
const usedIds = new WeakMap<object, { reply: string; ids: Set<string>; scanned: number }>()

/**
 * The tool call ids `reply` has used so far. Read incrementally (a reply's content only grows), so
 * a model call costs the blocks added since the last one, not the whole reply.
 */
export const usedCallIds = (owner: object, reply: Msg): Set<string> => {
  let seen = usedIds.get(owner)
  if (!seen || seen.reply !== reply.id || seen.scanned > reply.content.length) {
    seen = { reply: reply.id, ids: new Set(), scanned: 0 }
    usedIds.set(owner, seen)
  }
  const { content } = reply
  for (let i = seen.scanned; i < content.length; i++) if (content[i].type === 'tool_call') seen.ids.add(content[i].id)
  seen.scanned = content.length
  return seen.ids
}
