// The tool loop: each model turn streams 5 text deltas and calls one trivial tool; milliseconds
// per turn at 50 and at 400 turns in one reply (all of a reply's blocks live in one message).
// Both sizes are warmed up first, then measured interleaved; the best of ten counts. A 50-turn
// reply often fits in V8's young generation and runs with no garbage collection at all, which a
// 400-turn reply never does; so the ratio is also given for equal work on both sides (8 replies of
// 50 turns against 1 of 400, each timed as a whole), where collection weighs on both alike; and in
// CPU time, steadier than wall time on a shared machine. bench/turnGrowth.ts then compares the CPU time
// of early and late turns of the same 400-turn replies: the growth of the work per turn alone.
import { z } from 'zod'
import { callTool, createAgent, defineTool, say, UserMsg } from '../lib/index.js'
import { fastModel, line, now } from './helpers.js'
import { turnGrowth } from './turnGrowth.js'

const cpuMs = () => {
  const { user, system } = process.cpuUsage()
  return (user + system) / 1000
}

/** Wall and CPU milliseconds per turn of one reply of `turns` turns. */
const perTurn = async (turns: number) => {
  const tool = defineTool({ name: 'noop', description: 'does nothing', input: z.object({ i: z.number() }), execute: () => 'ok' })
  const script = Array.from({ length: turns }, (_, i) => [...say('a b c d e', 5), ...callTool(`c-${i}`, 'noop', { i })])
  script.push(say('done'))
  const agent = createAgent({ name: 'bench', model: fastModel(script), tools: [tool], maxIters: turns + 5 })
  const start = now()
  const cpuStart = cpuMs()
  const msg = await agent.reply(UserMsg({ content: 'loop' }))
  const elapsed = now() - start
  const cpu = cpuMs() - cpuStart
  if (msg.finished_reason !== 'completed' || agent.state.cur_iter !== turns + 1) throw new Error('the loop did not run to its end')
  return { wall: elapsed / turns, cpu: cpu / turns }
}

/** Milliseconds per turn over `replies` replies of `turns` turns each, one after the other. */
const perTurnOver = async (replies: number, turns: number) => {
  let wall = 0
  let cpu = 0
  for (let i = 0; i < replies; i++) {
    const figures = await perTurn(turns)
    wall += figures.wall / replies
    cpu += figures.cpu / replies
  }
  return { wall, cpu }
}

const best = (a: { wall: number; cpu: number }, b: { wall: number; cpu: number }) => ({ wall: Math.min(a.wall, b.wall), cpu: Math.min(a.cpu, b.cpu) })

export const toolLoop = async () => {
  await perTurn(50)
  await perTurn(400)
  const none = { wall: Infinity, cpu: Infinity }
  let small = none
  let large = none
  let smallBalanced = none
  let largeBalanced = none
  for (let i = 0; i < 10; i++) {
    small = best(small, await perTurn(50))
    large = best(large, await perTurn(400))
  }
  for (let i = 0; i < 5; i++) {
    smallBalanced = best(smallBalanced, await perTurnOver(8, 50))
    largeBalanced = best(largeBalanced, await perTurnOver(1, 400))
  }
  console.log('\nTool loop: 5 text deltas and one trivial tool call per model turn')
  line('per turn, 50 turns in one reply', `${small.wall.toFixed(3)} ms`, '≤ 0.3 ms')
  line('per turn, 400 turns in one reply', `${large.wall.toFixed(3)} ms`)
  line('ratio 400 / 50 turns', `${(large.wall / small.wall).toFixed(2)}`, '≤ 1.2')
  line('the same, equal work (8 replies of 50 turns, 1 of 400)', `${(largeBalanced.wall / smallBalanced.wall).toFixed(2)}`, '≤ 1.2')
  line('ratio 400 / 50 turns, CPU time', `${(large.cpu / small.cpu).toFixed(2)}`)
  line('the same, equal work, CPU time', `${(largeBalanced.cpu / smallBalanced.cpu).toFixed(2)}`)
  await turnGrowth()
}
