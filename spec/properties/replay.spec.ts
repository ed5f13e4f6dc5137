// replay on generated logs: every prefix folds to the state the live agent had at that seq (also
// through JSON), and an agent restored from any prefix is consistent and not running. Logs that
// cannot have happened (events moved, arbitrary values) must not crash replay nor fold silently to
// a broken state; the two that replay does not meet yet run with FUZZ_KNOWN_GAPS=strictReplay,replayGarbage.
import fc from 'fast-check'
import { isDeepStrictEqual } from 'node:util'
import { suite } from 'uvu'
import { AgentError, memoryLog, replay, type AgentEvent } from '../../lib/index.js'
import { toolCallProblems } from './helpers/checks.js'
import { commandsArb, runConversation } from './helpers/conversation.js'
import { avoiding, propertiesOf, type Gap } from './helpers/config.js'
import { logProblems } from './helpers/logShape.js'
import { describeValue } from './helpers/refusals.js'
import { scenarioArb } from './helpers/script.js'
import { newAgent, type World } from './helpers/world.js'

const test = suite('properties/replay')
const property = propertiesOf(test)
/** A property of a known gap: skipped until the gap is exposed (FUZZ_KNOWN_GAPS) or fixed. */
const gapProperty = (gap: Gap) => propertiesOf(avoiding(gap) ? test.skip : test)

const fail = (what: string): never => {
  throw new Error(what)
}

property('every prefix of a generated log replays to the live state at that seq, also through JSON', 50, async (params) => {
  await fc.assert(fc.asyncProperty(scenarioArb, commandsArb, (scenario, steps) => runConversation(scenario, steps, (world: World) => {
    const log = world.agent.log
    const json = JSON.parse(JSON.stringify(log)) as AgentEvent[]
    let state = replay([])
    let fromJson = state
    for (let n = 0; n <= log.length; n++) {
      if (n > 0) {
        state = replay([log[n - 1]], state)
        fromJson = replay([json[n - 1]], fromJson)
      }
      const live = world.states[n]
      if (live && !isDeepStrictEqual(state, live)) fail(`replay of the first ${n} events differs from the live state at seq ${n}`)
      if (!isDeepStrictEqual(fromJson, state)) fail(`replay of the first ${n} events through JSON differs`)
    }
  })), params)
})

property('an agent restored from any prefix of a generated log is consistent, not running, and its log well formed', 30, async (params) => {
  await fc.assert(fc.asyncProperty(scenarioArb, commandsArb, (scenario, steps) => runConversation(scenario, steps, (world: World) => {
    const log = world.agent.log
    for (let n = 0; n <= log.length; n++) {
      const prefix = log.slice(0, n)
      const agent = newAgent(world, memoryLog(prefix))
      const { state } = agent
      const problems = [...toolCallProblems(state), ...logProblems(agent.log)]
      if (state.status === 'running') problems.push('the restored agent is running')
      if (!isDeepStrictEqual(replay(agent.log), state)) problems.push('replay(restored log) differs from its state')
      if (replay(prefix).status === 'running' && agent.log.at(-1)?.type !== 'REPLY_END') problems.push('a reply cut by the crash was not closed')
      void agent.close()
      if (problems.length) fail(`restoring the first ${n} of ${log.length} events:\n  - ${problems.join('\n  - ')}`)
    }
  })), params)
})

/** A log with some events moved elsewhere (each move: from, to, modulo the length). */
const moved = (log: readonly AgentEvent[], moves: [number, number][]): AgentEvent[] => {
  const out = [...log]
  for (const [from, to] of moves) {
    if (out.length < 2) break
    const [event] = out.splice(from % out.length, 1)
    out.splice(to % (out.length + 1), 0, event)
  }
  return out
}

const movesArb = fc.array(fc.tuple(fc.nat(400), fc.nat(400)), { minLength: 1, maxLength: 3 })

property('a generated log with events moved never crashes replay, and a possible order folds to a consistent state', 50, async (params) => {
  await fc.assert(fc.asyncProperty(scenarioArb, commandsArb, movesArb, (scenario, steps, moves) => runConversation(scenario, steps, (world: World) => {
    const reordered = moved(world.agent.log, moves)
    let state
    try {
      state = replay(reordered)
    } catch (error) {
      if (!(error instanceof AgentError)) fail(`replay crashed on a reordered log: ${String(error)}`)
      return
    }
    const impossible = logProblems(reordered.map((e, i) => ({ ...e, metadata: { ...e.metadata, seq: i + 1 } }) as AgentEvent))
    if (impossible.length === 0 && toolCallProblems(state).length) fail(`a possible order folded to a broken state: ${toolCallProblems(state).join('; ')}`)
  })), params)
})

property('strict replay refuses a log whose events cannot have happened in that order, or folds it to a consistent state', 60, async (params) => {
  await fc.assert(fc.asyncProperty(scenarioArb, commandsArb, movesArb, (scenario, steps, moves) => runConversation(scenario, steps, (world: World) => {
    const reordered = moved(world.agent.log, moves)
    const impossible = logProblems(reordered)
    let state
    try {
      state = replay(reordered, undefined, { strict: true })
    } catch (error) {
      if (error instanceof AgentError && impossible.length) return
      throw error
    }
    const broken = toolCallProblems(state)
    if (impossible.length && broken.length) fail(`replay accepted an impossible log (${impossible[0]}) and folded it to a broken state: ${broken.join('; ')}`)
  })), params)
})

gapProperty('replayGarbage')('replay refuses arbitrary values with an AgentError and never crashes (known gap)', 300, (params) => {
  fc.assert(fc.property(fc.array(fc.anything(), { maxLength: 5 }), (log) => {
    try {
      replay(log as AgentEvent[])
    } catch (error) {
      if (!(error instanceof AgentError)) fail(`replay(${describeValue(log)}) crashed: ${String(error)}`)
    }
  }), params)
})

test.run()
