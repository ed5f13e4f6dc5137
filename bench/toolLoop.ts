// The tool loop: each model turn streams 5 text deltas and calls one trivial tool; milliseconds
// per turn at 50 and at 400 turns in one reply (all of a reply's blocks live in one message).
// Both sizes are warmed up first, then measured interleaved; the best of ten counts. A 50-turn
// reply often fits in V8's young generation and runs with no garbage collection at all, which a
// 400-turn reply never does; so the ratio is also given for equal work on both sides (8 replies of
// 50 turns against 1 of 400, each timed as a whole), where collection weighs on both alike.
import { z } from 'zod'
import { callTool, createAgent, defineTool, say, UserMsg } from '../lib/index.js'
import { fastModel, line, now } from './helpers.js'

const perTurn = async (turns: number) => {
  const tool = defineTool({ name: 'noop', description: 'does nothing', input: z.object({ i: z.number() }), execute: () => 'ok' })
  const script = Array.from({ length: turns }, (_, i) => [...say('a b c d e', 5), ...callTool(`c-${i}`, 'noop', { i })])
  script.push(say('done'))
  const agent = createAgent({ name: 'bench', model: fastModel(script), tools: [tool], maxIters: turns + 5 })
  const start = now()
  const msg = await agent.reply(UserMsg({ content: 'loop' }))
  const elapsed = now() - start
  if (msg.finished_reason !== 'completed' || agent.state.cur_iter !== turns + 1) throw new Error('the loop did not run to its end')
  return elapsed / turns
}

/** Milliseconds per turn over `replies` replies of `turns` turns each, one after the other. */
const perTurnOver = async (replies: number, turns: number) => {
  let total = 0
  for (let i = 0; i < replies; i++) total += await perTurn(turns)
  return total / replies
}

export const toolLoop = async () => {
  await perTurn(50)
  await perTurn(400)
  let small = Infinity
  let large = Infinity
  let smallBalanced = Infinity
  let largeBalanced = Infinity
  for (let i = 0; i < 10; i++) {
    small = Math.min(small, await perTurn(50))
    large = Math.min(large, await perTurn(400))
  }
  for (let i = 0; i < 5; i++) {
    smallBalanced = Math.min(smallBalanced, await perTurnOver(8, 50))
    largeBalanced = Math.min(largeBalanced, await perTurnOver(1, 400))
  }
  console.log('\nTool loop: 5 text deltas and one trivial tool call per model turn')
  line('per turn, 50 turns in one reply', `${small.toFixed(3)} ms`, '≤ 0.3 ms')
  line('per turn, 400 turns in one reply', `${large.toFixed(3)} ms`)
  line('ratio 400 / 50 turns', `${(large / small).toFixed(2)}`, '≤ 1.2')
  line('the same, equal work (8 replies of 50 turns, 1 of 400)', `${(largeBalanced / smallBalanced).toFixed(2)}`, '≤ 1.2')
}
