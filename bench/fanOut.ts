// Fan-out: one model response with N concurrent calls of a trivial concurrency-safe tool, then a
// final answer; the cost per call (wall / CPU ms) at 10, 100 and 1,000 calls in one response. The
// per-event work must not grow with the batch, so the figures stay flat (within 1.5×). `maxCallsPerResponse`
// is raised to the size measured. `FAN_OUT_SIZES=10,100` runs smaller sizes (a quick check).
import { z } from 'zod'
import { callTool, createAgent, defineTool, say } from '../lib/index.js'
import { cpuNow, fastModel, line, now } from './helpers.js'

/** Wall and CPU milliseconds per call of one reply whose first response makes `calls` concurrent calls. */
export const perCall = async (calls: number) => {
  const tool = defineTool({ name: 'noop', description: 'does nothing', input: z.object({ i: z.number() }), concurrencySafe: true, execute: async () => 'ok' })
  const first = Array.from({ length: calls }, (_, i) => callTool(`c-${i}`, 'noop', { i })).flat()
  const agent = createAgent({ name: 'bench', model: fastModel([first, say('done')]), tools: [tool], maxCallsPerResponse: calls })
  const start = now()
  const cpuStart = cpuNow()
  const msg = await agent.reply('fan out')
  const wall = now() - start
  const cpu = cpuNow() - cpuStart
  const results = msg.content.filter((b) => b.type === 'tool_result' && b.state === 'success').length
  if (msg.finished_reason !== 'completed' || results !== calls) throw new Error(`the fan-out of ${calls} did not complete (${results} results)`)
  return { wall: wall / calls, cpu: cpu / calls }
}

export const fanOut = async () => {
  const sizes = (process.env.FAN_OUT_SIZES ?? '10,100,1000').split(',').map(Number)
  for (const size of sizes) await perCall(size)
  const best = new Map(sizes.map((size) => [size, { wall: Infinity, cpu: Infinity }]))
  for (let round = 0; round < 5; round++)
    for (const size of sizes) {
      const figure = await perCall(size)
      const kept = best.get(size)!
      best.set(size, { wall: Math.min(kept.wall, figure.wall), cpu: Math.min(kept.cpu, figure.cpu) })
    }
  console.log('\nFan-out: one model response with N concurrent calls of a trivial tool')
  for (const size of sizes) line(`per call, ${size} calls in one response`, `${best.get(size)!.wall.toFixed(3)} / ${best.get(size)!.cpu.toFixed(3)} ms`)
  const smallest = best.get(sizes[0]!)!
  const largest = best.get(sizes.at(-1)!)!
  line(`ratio ${sizes.at(-1)} / ${sizes[0]} calls (wall / CPU)`, `${(largest.wall / smallest.wall).toFixed(2)} / ${(largest.cpu / smallest.cpu).toFixed(2)}`, '≤ 1.5')
}
