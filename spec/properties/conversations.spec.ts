// Random conversations with random interference: generated tools and model scripts, then a random
// sequence of steps (messages, answers to pauses, interrupts by every form, refused input,
// restarts and crashes). After every step the invariants of REFERENCE.md section 5 and the wire
// schemas are checked; at the end every tool body is awaited and they are checked again.
import fc from 'fast-check'
import { suite } from 'uvu'
import { commandsArb, runConversation } from './helpers/conversation.js'
import { propertiesOf } from './helpers/config.js'
import { scenarioArb } from './helpers/script.js'
import { printStats } from './helpers/stats.js'

const test = suite('properties/conversations')
const property = propertiesOf(test)

property('every step of a random conversation keeps the invariants, whatever interrupts it', 250, async (params) => {
  await fc.assert(fc.asyncProperty(scenarioArb, commandsArb, (scenario, steps) => runConversation(scenario, steps)), params)
  printStats('conversations')
})

test.run()
