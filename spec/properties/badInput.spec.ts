// Bad input at every entry point: arbitrary values and randomly damaged valid inputs sent through
// replyStream, reply, reply$ and dispatch to an agent that is fresh, idle after a reply, or parked;
// and arbitrary options to createAgent and defineTool. Each is refused with an AgentError carrying a
// code and changes nothing, or (a damaged input that is still valid) is accepted and keeps the invariants.
import fc from 'fast-check'
import { isDeepStrictEqual } from 'node:util'
import { suite } from 'uvu'
import { z } from 'zod'
import { AgentError, createAgent, defineTool, scriptedModel, type Agent } from '../../lib/index.js'
import { checkWorld } from './helpers/checks.js'
import { avoiding, propertiesOf } from './helpers/config.js'
import { damagedInputArb, isBlankMessage, parkedWorld, settle, validInputs } from './helpers/damage.js'
import { describeValue, entryArb, expectRefused, garbageArb, sendBad } from './helpers/refusals.js'
import { count, printStats } from './helpers/stats.js'
import { dispose } from './helpers/world.js'

const test = suite('properties/bad-input')
const property = propertiesOf(test)

const statusArb = fc.constantFrom('fresh' as const, 'idle' as const, 'paused' as const)

property('arbitrary values are refused with a code by every entry point, in every status, and change nothing', 150, async (params) => {
  await fc.assert(fc.asyncProperty(statusArb, garbageArb, entryArb, async (status, value, entry) => {
    const world = await parkedWorld(status)
    try {
      await expectRefused(world.agent, value, entry)
      checkWorld(world, `sending ${describeValue(value)}`)
    } finally {
      await dispose(world)
    }
  }), params)
})

property('a damaged valid input is refused with a code and changes nothing, or is accepted and keeps the invariants', 200, async (params) => {
  await fc.assert(fc.asyncProperty(statusArb, damagedInputArb, entryArb, async (status, damage, entry) => {
    const world = await parkedWorld(status)
    try {
      const input = damage.apply(validInputs(world)[damage.pick % validInputs(world).length])
      fc.pre(!(avoiding('blankText') && isBlankMessage(input)))
      fc.pre(!avoiding('jsonValues') || isDeepStrictEqual(JSON.parse(JSON.stringify(input ?? null)), input ?? null))
      const log = JSON.stringify(world.agent.log)
      const outcome = await sendBad(world.agent, input, entry)
      count(`${status}: ${outcome instanceof AgentError ? outcome.code : String(outcome)}`)
      if (outcome === 'accepted') await settle(world)
      else if (!(outcome instanceof AgentError) || JSON.stringify(world.agent.log) !== log)
        throw new Error(`${entry}(${describeValue(input)}) failed with ${outcome instanceof Error ? outcome.stack : String(outcome)}${JSON.stringify(world.agent.log) !== log ? ' and changed the log' : ''}`)
      checkWorld(world, `sending ${describeValue(input)}`)
    } finally {
      await dispose(world)
    }
  }), params)
  printStats('damaged input outcomes')
})

property('createAgent refuses arbitrary options with INVALID_OPTION', 300, (params) => {
  const model = scriptedModel([])
  const optionArb = fc.record({
    name: fc.oneof(fc.constant('A'), fc.anything()), model: fc.oneof(fc.constant(model), fc.anything()),
    maxIters: fc.oneof(fc.constant(undefined), fc.anything()), tools: fc.oneof(fc.constant(undefined), fc.anything()),
    sysPrompt: fc.oneof(fc.constant(undefined), fc.anything()), interruptText: fc.oneof(fc.constant(undefined), fc.anything()),
  }, { requiredKeys: [] })
  fc.assert(fc.property(fc.oneof(optionArb, fc.anything()), (options) => {
    let agent: Agent | undefined
    try {
      agent = createAgent(options as never)
    } catch (error) {
      if (!(error instanceof AgentError) || error.code !== 'INVALID_OPTION') throw new Error(`createAgent(${describeValue(options)}) threw ${String(error)}`)
      return
    }
    void agent.close()
  }), params)
})

property('defineTool refuses arbitrary definitions with INVALID_OPTION', 300, (params) => {
  const definitionArb = fc.record({
    name: fc.oneof(fc.constant('t'), fc.anything()), description: fc.anything(), input: fc.oneof(fc.constant(z.object({})), fc.anything()),
    execute: fc.oneof(fc.constant(() => 'ok'), fc.anything()), external: fc.anything(),
  }, { requiredKeys: [] })
  fc.assert(fc.property(definitionArb, (definition) => {
    try {
      defineTool(definition as never)
    } catch (error) {
      if (!(error instanceof AgentError) || error.code !== 'INVALID_OPTION') throw new Error(`defineTool(${describeValue(definition)}) threw ${String(error)}`)
    }
  }), params)
})

test('the fixed scenario of these properties parks on its first message, on an asking and a submitted call', async () => {
  const world = await parkedWorld('paused')
  try {
    const waiting = world.agent.state.waiting_for.map((c) => c.state).sort()
    if (world.agent.state.status !== 'paused' || waiting.join() !== 'asking,submitted') throw new Error(`parked on ${waiting.join()}`)
  } finally {
    await dispose(world)
  }
})

test.run()
