// What createAgent takes (AgentOptions) and what a reply takes as input (AgentInput).
import type { z } from 'zod'
import type { Clock } from '../core/clock.js'
import type { AgentEvent } from '../core/events.js'
import type { LogStore } from '../core/log.js'
import type { Block, Msg } from '../core/messages.js'
import type { ChatModel } from '../models/model.js'
import type { SubagentLogs } from '../subagents/childLogs.js'
import type { CompactionOptions } from './compaction.js'
import type { RuntimeHintOptions } from './hints.js'
import type { Tool } from './tools.js'

export const DEFAULT_INTERRUPT_TEXT = 'I notice the interruption. How can I help you?'

export interface AgentOptions {
  name: string
  /** What the agent does, in a sentence (its A2A card's description when served with createServer({ a2a })). */
  description?: string
  sysPrompt?: string
  model: ChatModel
  tools?: Tool[]
  /** Reasoning-acting rounds per reply before it ends with `exceed_max_iters` (default 50). */
  maxIters?: number
  /**
   * The tool calls of one model response that are run (default 100); each call past it gets an
   * `error` result saying so (LIMIT_REACHED), which the model reads, and nothing runs for it.
   */
  maxCallsPerResponse?: number
  /** Where the events go (default: in memory). An existing log is restored. */
  log?: LogStore
  session_id?: string
  /** The text of the message an interrupted `reply()` resolves to. */
  interruptText?: string
  /** A zod object schema every reply ends with a value of (a reply's own `output` overrides it). */
  output?: z.ZodType
  /** Summarize the older context before a model call whose estimated input is over a limit. */
  compaction?: CompactionOptions
  /**
   * Add a hint with the current time before a model call when the context has none, or an older
   * one than `intervalHours` (AgentScope's runtime-state injection; off by default). The hint is a
   * HINT_BLOCK in the log, so replay reads no clock.
   */
  runtimeHints?: boolean | RuntimeHintOptions
  clock?: Clock
  /** Where the logs of the sub-agents this agent's agent tools start go (a hub gives its store's sessions; default: in memory). */
  subagentLogs?: SubagentLogs
}

/** A user message (a string, `{ role: 'user', content }` or a full Msg) or an input event. */
export type AgentInput = string | { role: 'user' | 'system'; content: string | Block[]; name?: string } | Msg | AgentEvent
