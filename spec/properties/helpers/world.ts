// The system under test of one property run: an agent on a scripted model with generated tools,
// the journal of tool bodies, what every step observed, and the bookkeeping the checks compare
// against (the log and context seen so far, every state the agent published, the usage seen).
import { counterClock, createAgent, memoryLog, say, scriptedModel, type Agent, type AgentState, type Msg, type ScriptedModel, type Tool } from '../../../lib/index.js'
import { buildTool, Journal } from './tools.js'
import { buildTurn, FINAL_TURN, type CompactionPlan, type Scenario } from './script.js'

export interface World {
  scenario: Scenario
  model: ScriptedModel
  tools: Tool[]
  journal: Journal
  agent: Agent
  /** Every agent of the run (a restart adds one); all are closed at the end. */
  agents: Agent[]
  /** The JSON of each event the checks have seen so far: the log must keep them unchanged. */
  seenLog: string[]
  /** The ended messages seen so far: the context must keep them unchanged. */
  seenContext: Msg[]
  /** The state after each event the current agent published, indexed by seq (for prefix replays). */
  states: AgentState[]
  /** Problems found asynchronously (in a subscriber, a tool): reported by the next check. */
  problems: string[]
  /** Model requests already checked for provider validity. */
  checkedRequests: number
  /** The kind of each step that ran (counted with FUZZ_STATS=1). */
  trace: string[]
}

const SYS_PROMPT = 'You are a generated test agent.'

export const createWorld = (scenario: Scenario): World => {
  const journal = new Journal()
  const model = scriptedModel([...scenario.turns.map((t, i) => buildTurn(t, i + 1)), FINAL_TURN], { onExhausted: 'repeat-last' })
  const tools = scenario.tools.map((plan) => buildTool(plan, journal))
  const world = {
    scenario, model, tools, journal, agents: [], seenLog: [], seenContext: [], states: [], problems: [], checkedRequests: 0, trace: [],
  } as unknown as World
  attach(world, newAgent(world, memoryLog()))
  return world
}

export const newAgent = (world: World, log = memoryLog()): Agent =>
  createAgent({
    name: 'Prop', sysPrompt: SYS_PROMPT, model: world.model, tools: world.tools, maxIters: world.scenario.maxIters, log, clock: counterClock(`a${world.agents.length}`),
    ...(world.scenario.compaction ? { compaction: compactionOf(world.scenario.compaction) } : {}),
  })

const compactionOf = ({ maxContextTokens, keepRecent, delayMs }: CompactionPlan) => ({
  maxContextTokens, keepRecent,
  summarize: scriptedModel([[...(delayMs ? [{ type: 'delay' as const, ms: delayMs }] : []), ...say('Summary of the conversation so far.', 2)]], { name: 'summarizer', onExhausted: 'repeat-last' }),
})

/** Makes `agent` the one the steps drive: the journal reads its state, its states are recorded. */
export const attach = (world: World, agent: Agent): void => {
  world.agent = agent
  world.agents.push(agent)
  world.journal.agent = agent
  world.states = []
  world.seenLog = agent.log.map((e) => JSON.stringify(e))
  world.seenContext = [...agent.state.context]
  let usage = agent.state.usage
  agent.state$.subscribe((state) => {
    if (world.agent !== agent) return
    world.states[state.seq] = state
    const u = state.usage
    if (u.input_tokens < usage.input_tokens || u.output_tokens < usage.output_tokens || u.cache_input_tokens < usage.cache_input_tokens || u.cache_creation_input_tokens < usage.cache_creation_input_tokens)
      world.problems.push(`usage decreased at seq ${state.seq}: ${JSON.stringify(usage)} -> ${JSON.stringify(u)}`)
    usage = u
  })
}

/**
 * Waits until every tool body has settled (one that ignores its signal runs on after its reply).
 * A body that never does (a stream the agent stopped pulling without return()) is a problem.
 */
export const drain = async (world: World): Promise<void> => {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), 1000)))
  const settled = Promise.all(world.journal.bodies.map((b) => b.settled))
  if (await Promise.race([settled, late]) === 'late') {
    const open = world.journal.bodies.filter((b) => b.settleSeq === null).map((b) => `${b.tool} (${b.call_id})`)
    world.problems.push(`tool bodies never settled: ${open.join(', ')}`)
  }
  clearTimeout(timer)
  await new Promise((resolve) => setTimeout(resolve, 5))
}

export const dispose = async (world: World): Promise<void> => {
  for (const agent of world.agents) await agent.close()
}
