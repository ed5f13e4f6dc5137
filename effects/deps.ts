// What effects receive from the agent: everything impure (model, tools, clock) and the options
// that shape a reply. Specs pass scripted models and a counter clock, so runs are deterministic.
import type { Clock } from '../lib/clock.js'
import type { ChatModel } from '../lib/model.js'
import type { Tool } from '../lib/tools.js'

export interface AgentDeps {
  name: string
  session_id: string
  sysPrompt: string
  model: ChatModel
  tools: ReadonlyMap<string, Tool>
  maxIters: number
  clock: Clock
}
