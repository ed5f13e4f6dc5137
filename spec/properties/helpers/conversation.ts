// One generated conversation from start to end: build the world from a scenario, run the steps
// with fast-check's model runner (each step checks the invariants), then await every tool body
// still running (those that ignore their signal) and check again: late results change nothing.
import fc from 'fast-check'
import { checkWorld } from './checks.js'
import { stepArbs } from './commands.js'
import { refusalArbs } from './refusals.js'
import type { Scenario } from './script.js'
import { count } from './stats.js'
import { createWorld, dispose, drain, type World } from './world.js'

const [send, answer, interruptParked, noop, restart, crash] = stepArbs
const [refuse, garbage] = refusalArbs
export const commandsArb = fc.commands<World, World, false>(
  [send, send, send, send, answer, answer, answer, answer, interruptParked, interruptParked, noop, restart, crash, refuse, refuse, garbage],
  { maxCommands: 14, size: 'large', ...(process.env.FUZZ_COMMANDS_PATH ? { replayPath: process.env.FUZZ_COMMANDS_PATH } : {}) },
)

/** Counts what the run reached: steps by kind, reply endings, pauses, late tool output. */
const tally = (world: World) => {
  count('runs')
  for (const step of world.trace) count(`step: ${step}`)
  for (const agent of world.agents) for (const e of agent.log) {
    if (e.type === 'REPLY_END') count(`end: ${e.finished_reason}`)
    if (e.type === 'TOOL_RESULT_END') count(`tool result: ${e.state}`)
    if (e.type === 'REQUIRE_USER_CONFIRM' || e.type === 'REQUIRE_EXTERNAL_EXECUTION' || e.type === 'INTERRUPT_REQUESTED' || e.type === 'USER_INTERRUPT') count(`event: ${e.type}`)
    count('events')
  }
  for (const body of world.journal.bodies) {
    count('tool bodies')
    if (body.abortSeq !== null) count('tool bodies aborted')
    if (body.lateOutput) count('tool bodies with output after their abort')
  }
}

/** Runs the steps on a fresh world; `after` inspects the world once everything has settled. */
export const runConversation = async (scenario: Scenario, steps: Iterable<fc.AsyncCommand<World, World>>, after?: (world: World) => void): Promise<void> => {
  const world = createWorld(scenario)
  try {
    checkWorld(world, 'creating the agent')
    await fc.asyncModelRun(() => ({ model: world, real: world }), steps)
    await drain(world)
    checkWorld(world, 'every tool body settled')
    tally(world)
    after?.(world)
  } finally {
    await dispose(world)
  }
}
