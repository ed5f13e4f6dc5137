// A2A messages and parts as agentlog sees them: an incoming message's parts become the blocks of a
// user message (text as text, a JSON data part as its JSON text, an inline image as a data block;
// other kinds are refused naming the kind), or, for a task that waits, answers (`agentlog.answer`
// data parts, or plain "yes" / "no"). The reply's side: text parts and the `agentlog.waiting` part.
import type { Block } from '../../core/messages.js'
import type { WaitingCall } from '../../agent/text.js'
import { RPC, RpcError } from './rpc.js'
import { REMOTE_CALLS } from '../../a2a/names.js'

export type A2aPart = { text: string; metadata?: unknown } | { data: unknown; metadata?: unknown; mediaType?: string }

export interface A2aMessage {
  messageId: string
  role: 'ROLE_USER' | 'ROLE_AGENT'
  parts: A2aPart[]
  contextId?: string
  taskId?: string
  metadata?: Record<string, unknown>
}

/** An answer to a waiting call, as the `agentlog.answer` data part says it. */
export type Answer =
  | { tool_call_id: string; session_id?: string; decision: 'approve'; input?: Record<string, unknown> }
  | { tool_call_id: string; session_id?: string; decision: 'deny'; reason?: string }
  | { tool_call_id: string; session_id?: string; result: unknown }

const bad = (message: string) => new RpcError(RPC.INVALID_PARAMS, message)
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

/** The message of SendMessage's params, checked (a user message with at least one part). */
export const parseMessage = (value: unknown): A2aMessage & { parts: Record<string, unknown>[] } => {
  if (!isObject(value)) throw bad('SendMessage needs "message": { "messageId", "role": "ROLE_USER", "parts": [...] }.')
  if (value.role !== 'ROLE_USER') throw bad(`The message's role must be "ROLE_USER"; received ${JSON.stringify(value.role ?? null)}.`)
  if (typeof value.messageId !== 'string' || value.messageId === '') throw bad('The message needs a "messageId" (a non-empty string).')
  if (!Array.isArray(value.parts) || value.parts.length === 0 || !value.parts.every(isObject)) throw bad('The message needs "parts": a non-empty list of part objects ({ "text" } or { "data" }).')
  for (const key of ['contextId', 'taskId'] as const)
    if (value[key] !== undefined && typeof value[key] !== 'string') throw bad(`The message's "${key}" must be a string.`)
  return value as unknown as A2aMessage & { parts: Record<string, unknown>[] }
}

const IMAGE = /^image\/[\w.+-]+$/

/** The kind of a part for a refusal: its content field. */
const kindOf = (part: Record<string, unknown>): string => ['text', 'raw', 'url', 'data'].find((k) => k in part) ?? `unknown (fields ${Object.keys(part).join(', ') || 'none'})`

/** The blocks of a user message made of the parts (Date/ids by `stamp`). */
export const blocksOf = (parts: Record<string, unknown>[], stamp: () => { id: string; created_at: string }): Block[] =>
  parts.map((part, i): Block => {
    const { id, created_at } = stamp()
    const at = { id, created_at, finished_at: created_at }
    if (typeof part.text === 'string') return { type: 'text', text: part.text, ...at }
    if ('data' in part && part.data !== undefined) {
      if (isObject(part.data) && part.data.kind === 'agentlog.answer') throw bad('An "agentlog.answer" part answers a task that waits: send it with the task\'s "taskId".')
      return { type: 'text', text: JSON.stringify(part.data), ...at }
    }
    if (typeof part.raw === 'string' && typeof part.mediaType === 'string' && IMAGE.test(part.mediaType))
      return { type: 'data', source: { type: 'base64', data: part.raw, media_type: part.mediaType }, ...(typeof part.filename === 'string' ? { name: part.filename } : {}), ...at }
    const kind = kindOf(part)
    throw bad(`Part ${i} is a ${kind === 'raw' ? `file part (raw, media type ${JSON.stringify(part.mediaType ?? null)})` : `${kind} part`}: this agent takes text parts, data parts and inline images (raw with an image/* mediaType).`)
  })

const EXPECTED = 'a data part { "kind": "agentlog.answer", "tool_call_id", "session_id"?, "decision": "approve" | "deny", "input"?, "reason"? } or { "kind": "agentlog.answer", "tool_call_id", "session_id"?, "result" }, or the text "yes" / "no" when exactly one call asks'

/** The answers a message to a waiting task gives, checked against what waits; anything else is refused saying what is expected. */
export const answersOf = (parts: Record<string, unknown>[], waiting: readonly WaitingCall[]): Answer[] => {
  const asking = waiting.filter((c) => c.state === 'asking')
  if (parts.length === 1 && typeof parts[0].text === 'string') {
    const word = parts[0].text.trim().toLowerCase()
    if ((word === 'yes' || word === 'no') && asking.length === 1 && waiting.length === 1) {
      const { id, session_id } = asking[0]
      return [word === 'yes' ? { tool_call_id: id, session_id, decision: 'approve' } : { tool_call_id: id, session_id, decision: 'deny' }]
    }
    throw bad(`The task waits for ${describeWaiting(waiting)}; answer with ${EXPECTED}.`)
  }
  return parts.map((part) => {
    const data = part.data
    if (!isObject(data) || data.kind !== 'agentlog.answer' || typeof data.tool_call_id !== 'string')
      throw bad(`The task waits for ${describeWaiting(waiting)}; every part must be ${EXPECTED}.`)
    const call = waiting.find((c) => c.id === data.tool_call_id && (data.session_id === undefined || c.session_id === data.session_id))
    if (!call) throw bad(`The task does not wait for call ${JSON.stringify(data.tool_call_id)}${data.session_id === undefined ? '' : ` in session ${JSON.stringify(data.session_id)}`}; it waits for ${describeWaiting(waiting)}.`)
    const ref = { tool_call_id: call.id, session_id: call.session_id }
    if (call.state === 'asking') {
      if (data.decision === 'approve') {
        if (data.input !== undefined && !isObject(data.input)) throw bad('"input" of an approval must be an object (the edited arguments).')
        return { ...ref, decision: 'approve', ...(data.input === undefined ? {} : { input: data.input }) }
      }
      if (data.decision === 'deny') {
        if (data.reason !== undefined && typeof data.reason !== 'string') throw bad('"reason" of a denial must be a string.')
        return { ...ref, decision: 'deny', ...(data.reason === undefined ? {} : { reason: data.reason as string }) }
      }
      throw bad(`Call ${call.id} (${call.name}) asks for a decision: "decision": "approve" or "deny".`)
    }
    if (!('result' in data)) throw bad(`Call ${call.id} (${call.name}) waits for its result: "result": <the output>.`)
    return { ...ref, result: data.result }
  })
}

const describeWaiting = (waiting: readonly WaitingCall[]) =>
  waiting.map((c) => `${c.id} (${c.name}, ${c.state === 'asking' ? 'approve or deny' : 'its result'})`).join(', ') || 'nothing'

/** What a remote A2A agent asks (an a2aAgent call waiting on remote_approval / remote_input: the question in its input). */
const questionOf = (call: WaitingCall): string | undefined => {
  if (!REMOTE_CALLS.has(call.name)) return undefined
  const input = parseOr(call.input) as { question?: unknown } | null
  return typeof input?.question === 'string' ? input.question : undefined
}

/** The status message parts of a task that waits: the `agentlog.waiting` data part, and the same in words. */
export const waitingParts = (waiting: readonly WaitingCall[]): A2aPart[] => {
  const calls = waiting.map((c) => {
    const question = questionOf(c)
    return { id: c.id, session_id: c.session_id, name: c.name, input: parseOr(c.input), state: c.state, ...(question === undefined ? {} : { question }) }
  })
  const words = waiting.map((c) => {
    const question = questionOf(c)
    return c.state === 'asking' ? `approve or deny ${c.name}(${c.input})${question ? `: ${question}` : ''}` : `the result of ${c.name}(${c.input})${question ? `: ${question}` : ''}`
  })
  return [{ text: `Waiting for ${words.join('; ') || 'nothing'}.` }, { data: { kind: 'agentlog.waiting', calls } }]
}

const parseOr = (json: string): unknown => {
  try {
    return JSON.parse(json)
  } catch {
    return json
  }
}
