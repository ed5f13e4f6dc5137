// What effects receive from the agent: everything impure (model, tools, clock) and the options
// that shape a reply. Specs pass scripted models and a counter clock, so runs are deterministic.
// `tools` and `output` are the current reply's: the agent sets them when a reply starts.
import type { CompactionSettings } from '../lib/agent/compaction.js'
import type { Clock } from '../lib/core/clock.js'
import type { ChatModel } from '../lib/models/model.js'
import type { RuntimeHintSettings } from '../lib/agent/hints.js'
import type { Tool, ToolHost } from '../lib/agent/tools.js'

export interface AgentDeps {
  name: string
  session_id: string
  sysPrompt: string
  model: ChatModel
  tools: ReadonlyMap<string, Tool>
  /** The structured-output tool the current reply must end with, or null. */
  output: string | null
  /** That tool's input schema (JSON Schema), which the USER_MESSAGE records (`metadata.output_schema`), or null. */
  outputSchema: Record<string, unknown> | null
  maxIters: number
  /** The calls of one model response that are run; the rest get an `error` result (default in effects/plan.ts). */
  maxCallsPerResponse?: number
  /** Runtime hints (the current time) before model calls, or null (off). */
  runtimeHints: RuntimeHintSettings | null
  /** When and how the context is compacted before a model call, or null (never). */
  compaction: CompactionSettings | null
  clock: Clock
  /** The agent the effects run for (tools receive it in their context). */
  host: ToolHost
  /** The log's proof of ownership before a model or tool call starts (LogStore.confirm), or null. */
  confirm: (() => Promise<void> | null) | null
}
