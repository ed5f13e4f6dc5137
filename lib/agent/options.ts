// Admission of what callers pass the agent: its options, a reply's options, and the input itself
// (a user message or an input event), each checked with a clear error before anything happens.
import type { Clock } from '../core/clock.js'
import { createEvent } from '../core/clock.js'
import { AgentError, describe } from '../core/errors.js'
import { InputEventSchema, type AgentEvent } from '../core/events.js'
import { UserMsg } from '../core/factories.js'
import { MsgSchema, type Block } from '../core/messages.js'
import { checkKnownKeys, optionKeys } from '../core/strictOptions.js'
import type { AgentOptions } from './agentOptions.js'
import type { ReplyOptions } from './replyOptions.js'
import { traceContextProblem, withTraceContext, type TraceContext } from '../core/traceparent.js'

const fail = (code: 'INVALID_OPTION' | 'INVALID_INPUT', message: string): never => {
  throw new AgentError(code, message)
}

/** The options createAgent knows (AgentOptions); any other key is refused as a typo. */
export const AGENT_OPTION_KEYS = optionKeys<AgentOptions>({
  name: true, description: true, sysPrompt: true, model: true, tools: true, maxIters: true, log: true, session_id: true, interruptText: true,
  output: true, compaction: true, runtimeHints: true, clock: true, subagentLogs: true, maxCallsPerResponse: true,
})

/** The options a reply knows (ReplyOptions). */
export const REPLY_OPTION_KEYS = optionKeys<ReplyOptions>({
  signal: true, rejectOnInterrupt: true, output: true, externalTools: true, metadata: true, descendants: true, traceContext: true, whilePaused: true,
})

export const checkAgentOptions = (options: unknown): void => {
  if (typeof options !== 'object' || options === null) fail('INVALID_OPTION', `createAgent expects an options object; received ${describe(options)}.`)
  checkKnownKeys('createAgent', options, AGENT_OPTION_KEYS)
  const o = options as Record<string, unknown>
  if (typeof o.name !== 'string' || o.name === '') fail('INVALID_OPTION', `createAgent: name must be a non-empty string; received ${describe(o.name)}.`)
  const model = o.model as { stream?: unknown; name?: unknown } | undefined
  if (typeof model?.stream !== 'function' || typeof model.name !== 'string')
    fail('INVALID_OPTION', `createAgent: model must have a name and a stream(request, { signal }) method (use scriptedModel, openAIChatModel or anthropicModel); received ${describe(model)}.`)
  if (o.sysPrompt !== undefined && typeof o.sysPrompt !== 'string') fail('INVALID_OPTION', `createAgent: sysPrompt must be a string; received ${describe(o.sysPrompt)}.`)
  if (o.maxIters !== undefined && !(Number.isInteger(o.maxIters) && (o.maxIters as number) >= 1))
    fail('INVALID_OPTION', `createAgent: maxIters must be a whole number of at least 1; received ${describe(o.maxIters)}.`)
  if (o.maxCallsPerResponse !== undefined && !(Number.isInteger(o.maxCallsPerResponse) && (o.maxCallsPerResponse as number) >= 1))
    fail('INVALID_OPTION', `createAgent: maxCallsPerResponse must be a whole number of at least 1; received ${describe(o.maxCallsPerResponse)}.`)
  if (o.tools !== undefined) {
    if (!Array.isArray(o.tools)) fail('INVALID_OPTION', `createAgent: tools must be an array of defineTool(...) results; received ${describe(o.tools)}.`)
    const names = new Set<string>()
    for (const tool of o.tools as { spec?: unknown; name?: string }[]) {
      if (!tool?.spec) fail('INVALID_OPTION', `createAgent: every tool must come from defineTool(...); received ${describe(tool)}.`)
      if (names.has(tool.name!)) fail('INVALID_OPTION', `createAgent: two tools are named "${tool.name}"; tool names must be unique.`)
      names.add(tool.name!)
    }
  }
  if (o.interruptText !== undefined && typeof o.interruptText !== 'string') fail('INVALID_OPTION', `createAgent: interruptText must be a string; received ${describe(o.interruptText)}.`)
}

export const checkReplyOptions = (options: unknown): void => {
  if (typeof options !== 'object' || options === null) fail('INVALID_OPTION', `Reply options must be an object such as { signal }; received ${describe(options)}.`)
  checkKnownKeys('reply options', options, REPLY_OPTION_KEYS)
  const { signal, rejectOnInterrupt, externalTools, metadata, traceContext, whilePaused } = options as Record<string, unknown>
  if (whilePaused !== undefined && whilePaused !== 'refuse' && whilePaused !== 'interrupt' && whilePaused !== 'queue')
    fail('INVALID_OPTION', `whilePaused must be 'refuse', 'interrupt' or 'queue'; received ${describe(whilePaused)}.`)
  if (externalTools !== undefined && !Array.isArray(externalTools)) fail('INVALID_OPTION', `externalTools must be an array of { name, description, parameters? }; received ${describe(externalTools)}.`)
  if (signal !== undefined && !(signal instanceof AbortSignal)) fail('INVALID_OPTION', `The signal option must be an AbortSignal (new AbortController().signal); received ${describe(signal)}.`)
  if (rejectOnInterrupt !== undefined && typeof rejectOnInterrupt !== 'boolean') fail('INVALID_OPTION', `rejectOnInterrupt must be a boolean; received ${describe(rejectOnInterrupt)}.`)
  if (metadata !== undefined) checkMetadata(metadata)
  const traceProblem = traceContext === undefined ? null : traceContextProblem(traceContext)
  if (traceProblem) fail('INVALID_OPTION', `traceContext must be { traceparent, tracestate? } as in W3C Trace Context (currentTraceContext() from agentlog/otel gives it); ${traceProblem}.`)
}

/** The metadata a reply's options record on its input event: `metadata`, plus `trace_context` from `traceContext`. */
export const inputMetadata = (options: { metadata?: Record<string, unknown>; traceContext?: TraceContext }): Record<string, unknown> | undefined =>
  withTraceContext(options.metadata, options.traceContext)

const checkMetadata = (metadata: unknown): void => {
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) fail('INVALID_OPTION', `metadata must be a plain object such as { trace_id: 'abc' }; received ${describe(metadata)}.`)
  const nonJson = findNonJson(metadata, 'metadata')
  if (nonJson) fail('INVALID_OPTION', `${nonJson} is not a plain JSON value; the log holds JSON, so send strings, finite numbers, booleans, null, arrays and plain objects.`)
  if ('seq' in (metadata as object)) fail('INVALID_OPTION', 'metadata.seq is where the log keeps an event\'s position; use another key.')
  for (const key of ['parent', 'child_session_id'])
    if (key in (metadata as object)) fail('INVALID_OPTION', `metadata.${key} links sessions of a tree, which only agentlog records (an agent tool's call and its sub-agent); use another key.`)
  if ('session_id' in (metadata as object)) fail('INVALID_OPTION', 'metadata.session_id is where a stream with `descendants` names the sub-agent session an event belongs to; use another key.')
}

/** The path of the first value JSON cannot carry unchanged (a Date, NaN, a BigInt, a class instance, ...), or null. */
export const findNonJson = (value: unknown, path = '(input)'): string | null => {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return null
  if (typeof value === 'number') return Number.isFinite(value) ? null : path
  if (typeof value !== 'object') return path
  if (Array.isArray(value)) {
    if (Object.keys(value).length !== value.length) return path
    for (let i = 0; i < value.length; i++) {
      const found = findNonJson(value[i], `${path}[${i}]`)
      if (found) return found
    }
    return null
  }
  const proto = Object.getPrototypeOf(value)
  if (proto !== Object.prototype && proto !== null) return path
  for (const [key, item] of Object.entries(value)) {
    if (item === undefined) continue
    const found = findNonJson(item, `${path}.${key}`)
    if (found) return found
  }
  return null
}

/** A user message becomes a USER_MESSAGE event; an input event is checked against its schema. */
export const admitInput = (input: unknown, clock: Clock): AgentEvent => {
  if (typeof input === 'string') {
    if (!input.trim()) fail('INVALID_INPUT', 'The message is empty; send some text (or a message with blocks).')
    return createEvent(clock, 'USER_MESSAGE', { msg: UserMsg({ content: input }, clock) })
  }
  if (typeof input === 'object' && input !== null && !Array.isArray(input) && 'role' in input && !('id' in input)) checkShorthand(input as Record<string, unknown>)
  if (isShorthandMsg(input)) input = UserMsg({ content: input.content, role: input.role, name: input.name }, clock)
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    fail('INVALID_INPUT', `Expected a message (a string, { role: 'user', content } or UserMsg({ content })) or an input event (UserConfirmResultEvent, ExternalExecutionResultEvent, UserInterruptEvent); received ${describe(input)}.`)
  const nonJson = findNonJson(input)
  if (nonJson) fail('INVALID_INPUT', `${nonJson} is not a plain JSON value (a Date, NaN, Infinity, a BigInt, a function or a class instance?); the log holds JSON, so send strings, finite numbers, booleans, null, arrays and plain objects.`)
  // What is logged is exactly what its JSON folds back to (keys set to undefined are dropped).
  const value = JSON.parse(JSON.stringify(input)) as Record<string, unknown>
  if ('role' in value) {
    const parsed = MsgSchema.safeParse(value)
    if (!parsed.success) fail('INVALID_INPUT', `Not a valid message: ${issueText(parsed.error.issues[0])}. Create messages with UserMsg({ name, content }).`)
    const msg = parsed.data!
    if (msg.role === 'assistant') fail('INVALID_INPUT', 'An assistant message cannot start a reply; send a user message (UserMsg({ content })).')
    return createEvent(clock, 'USER_MESSAGE', { msg })
  }
  const parsed = InputEventSchema.safeParse(value)
  if (!parsed.success) {
    const known = ['USER_CONFIRM_RESULT', 'EXTERNAL_EXECUTION_RESULT', 'USER_INTERRUPT'].includes(value.type as string)
    fail('INVALID_INPUT', known
      ? `Not a valid ${value.type as string} event: ${issueText(parsed.error.issues[0])}. Create it with its factory (e.g. UserConfirmResultEvent({ reply_id, confirm_results })).`
      : `Expected a message or an input event (USER_CONFIRM_RESULT, EXTERNAL_EXECUTION_RESULT, USER_INTERRUPT); received ${describe(input)}.`)
  }
  return parsed.data!
}

/** A message without an id is the shorthand `{ role, content, name? }`: its missing content (not the id) is what is wrong. */
const checkShorthand = (value: Record<string, unknown>): void => {
  const unknown = Object.keys(value).filter((key) => !SHORTHAND_KEYS.includes(key))
  if (!('content' in value)) {
    const given = unknown.length ? ` (it has ${unknown.map((key) => `\`${key}\``).join(', ')}, which a message does not know)` : ''
    fail('INVALID_INPUT', `The message has no \`content\`${given}; send { role: 'user', content: 'hi' } (content: a string or a list of blocks), or UserMsg({ content }).`)
  }
  checkKnownKeys('The message', value, SHORTHAND_KEYS, 'INVALID_INPUT')
}
const SHORTHAND_KEYS: readonly string[] = ['role', 'content', 'name']

/** `{ role: 'user' | 'system', content, name? }` without the rest of a Msg (no id): a message to build. */
const isShorthandMsg = (input: unknown): input is { role: 'user' | 'system'; content: string | Block[]; name?: string } => {
  if (typeof input !== 'object' || input === null || 'id' in input || !('role' in input) || !('content' in input)) return false
  const { role, content, name } = input as Record<string, unknown>
  if (role !== 'user' && role !== 'system') return false
  if (name !== undefined && typeof name !== 'string') return false
  return typeof content === 'string' || Array.isArray(content)
}

const issueText = (issue: { path: PropertyKey[]; message: string }) =>
  `${issue.path.length ? `${issue.path.map(String).join('.')}: ` : ''}${issue.message}`
