// Context compaction settings and the token estimate it is triggered by. Before a model call whose
// estimated input is over `maxContextTokens`, the older part of what the model sees is summarized
// (effects/compactContext.ts) and the summary stands in for it (reducers/compaction.ts).
//
// The estimate: when the reply has made a model call, that call's reported usage (input, cache
// creation, cache reads and output tokens; OpenAI-compatible providers count cache reads inside
// input, so there it errs high and compaction comes early rather than late) plus the documented
// estimate of the tool results recorded since. Otherwise the documented estimate of the whole
// request: one token per 4 characters of its JSON (system prompt, messages, tool schemas).
import { checkKnownKeys } from '../core/strictOptions.js'
import { AgentError, describe } from '../core/errors.js'
import type { Msg } from '../core/messages.js'
import type { ChatModel, ToolSpec } from '../models/model.js'

export interface CompactionOptions {
  /** Compact before a model call whose estimated input is over this many tokens. */
  maxContextTokens: number
  /** Recent segments kept as they are: a message, or one round of a long reply (a model call and its tool results). Default 2. With no more segments than that, nothing is compacted. */
  keepRecent?: number
  /** The model that writes the summary (default: the agent's model). */
  summarize?: ChatModel
  /** The summarizer's instructions (default: DEFAULT_COMPACTION_PROMPT). */
  prompt?: string
}

export interface CompactionSettings {
  maxContextTokens: number
  keepRecent: number
  summarize: ChatModel | null
  prompt: string
}

export const DEFAULT_COMPACTION_PROMPT = 'You compact the history of a conversation between a user and an AI assistant that uses tools. ' +
  'Write a concise summary that lets the assistant carry on without the original: the user\'s goals and requests, decisions made, ' +
  'facts learned from tool results (names, numbers, paths, ids), work done and work still open. Write only the summary.'

const CHARS_PER_TOKEN = 4

/** The documented estimate: one token per 4 characters of the JSON of `value`. */
export const estimateTokens = (value: unknown): number => Math.ceil(JSON.stringify(value).length / CHARS_PER_TOKEN)

export const estimateRequestTokens = (
  request: { system: string; messages: Msg[]; tools: ToolSpec[] },
  known: { tokens: number; since: unknown[] } | null,
): number => (known ? known.tokens + (known.since.length ? estimateTokens(known.since) : 0) : estimateTokens(request))

export const compactionSettings = (options: unknown): CompactionSettings | null => {
  if (options === undefined) return null
  const where = 'createAgent: compaction'
  if (typeof options !== 'object' || options === null) throw new AgentError('INVALID_OPTION', `${where} must be an object such as { maxContextTokens: 100000 }; received ${describe(options)}.`)
  checkKnownKeys(where, options, ['maxContextTokens', 'keepRecent', 'summarize', 'prompt'])
  const { maxContextTokens, keepRecent = 2, summarize, prompt = DEFAULT_COMPACTION_PROMPT } = options as Record<string, unknown>
  if (!(Number.isInteger(maxContextTokens) && (maxContextTokens as number) > 0))
    throw new AgentError('INVALID_OPTION', `${where}.maxContextTokens must be a whole number of tokens above 0; received ${describe(maxContextTokens)}.`)
  if (!(Number.isInteger(keepRecent) && (keepRecent as number) >= 1))
    throw new AgentError('INVALID_OPTION', `${where}.keepRecent must be a whole number of at least 1; received ${describe(keepRecent)}.`)
  const model = summarize as { stream?: unknown; name?: unknown } | undefined
  if (model !== undefined && (typeof model?.stream !== 'function' || typeof model.name !== 'string'))
    throw new AgentError('INVALID_OPTION', `${where}.summarize must be a model (a name and a stream(request, { signal }) method); received ${describe(summarize)}.`)
  if (typeof prompt !== 'string' || !prompt.trim()) throw new AgentError('INVALID_OPTION', `${where}.prompt must be a non-empty string; received ${describe(prompt)}.`)
  return { maxContextTokens: maxContextTokens as number, keepRecent: keepRecent as number, summarize: (summarize as ChatModel | undefined) ?? null, prompt }
}

/** The covered messages as a plain transcript, the summarizer's input (no tool protocol to satisfy). */
export const transcript = (messages: Msg[]): string =>
  messages.flatMap((msg) => msg.content.map((block) => {
    switch (block.type) {
      case 'text': return `${msg.role} (${msg.name}): ${block.text}`
      case 'thinking': return ''
      case 'hint': return `hint: ${typeof block.hint === 'string' ? block.hint : block.hint.map((b) => (b.type === 'text' ? b.text : `[${b.source.media_type}]`)).join(' ')}`
      case 'data': return `${msg.role} (${msg.name}): [${block.source.media_type} data]`
      case 'tool_call': return `tool call ${block.name} [${block.id}]: ${block.input}`
      case 'tool_result': return `tool result ${block.name} [${block.id}] (${block.state}): ${typeof block.output === 'string' ? block.output : block.output.map((b) => (b.type === 'text' ? b.text : `[${b.source.media_type} data]`)).join('\n')}`
    }
  })).filter(Boolean).join('\n\n')
