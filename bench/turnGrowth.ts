// Does a tool-loop turn cost more late in a long reply? Takes the CPU time of each model turn of
// 400-turn replies (from one model call to the next) and compares the first 50 turns with the last
// 50 of the same replies; the garbage collection pauses inside them (PerformanceObserver 'gc'
// entries, wall time) are printed beside. The whole-reply ratio in toolLoop.ts also measures how
// much of a 50-turn reply fits in V8's young generation; this one compares turns of equal context.
import { PerformanceObserver } from 'node:perf_hooks'
import { z } from 'zod'
import { callTool, createAgent, defineTool, say, UserMsg, type ChatModel } from '../lib/index.js'
import { line, median, now } from './helpers.js'

const TURNS = 400
const WINDOW = 50
const REPLIES = 12

const tool = defineTool({ name: 'noop', description: 'does nothing', input: z.object({ i: z.number() }), execute: () => 'ok' })

interface Start { wall: number; cpu: number }

const cpuMs = () => {
  const { user, system } = process.cpuUsage()
  return (user + system) / 1000
}

/** When each model call of one reply started: performance.now() and CPU milliseconds. */
const turnStarts = async (): Promise<Start[]> => {
  const script = Array.from({ length: TURNS }, (_, i) => [...say('a b c d e', 5), ...callTool(`c-${i}`, 'noop', { i })])
  script.push(say('done'))
  const starts: Start[] = []
  const model: ChatModel = {
    name: 'timed',
    async *stream() {
      starts.push({ wall: now(), cpu: cpuMs() })
      yield* script[starts.length - 1]
    },
  }
  const agent = createAgent({ name: 'bench', model, tools: [tool], maxIters: TURNS + 5 })
  await agent.reply(UserMsg({ content: 'loop' }))
  return starts
}

const mean = (xs: number[]) => xs.reduce((sum, x) => sum + x, 0) / xs.length

/** CPU milliseconds, and milliseconds of collection pauses, per turn over turns [from, to). */
const windowCost = (starts: Start[], gcs: { start: number; duration: number }[], from: number, to: number) => {
  let gc = 0
  for (const { start, duration } of gcs) if (start >= starts[from].wall && start < starts[to].wall) gc += duration
  const cpu = starts[to].cpu - starts[from].cpu
  return { cpu: cpu / (to - from), gc: gc / (to - from) }
}

export const turnGrowth = async () => {
  const gcs: { start: number; duration: number }[] = []
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) gcs.push({ start: entry.startTime, duration: entry.duration })
  })
  observer.observe({ entryTypes: ['gc'] })
  await turnStarts()
  const replies: Start[][] = []
  for (let i = 0; i < REPLIES; i++) replies.push(await turnStarts())
  // GC entries are delivered asynchronously: let the last ones arrive.
  await new Promise((resolve) => setTimeout(resolve, 50))
  observer.disconnect()
  const early = replies.map((starts) => windowCost(starts, gcs, 0, WINDOW))
  const late = replies.map((starts) => windowCost(starts, gcs, TURNS - WINDOW, TURNS))
  const ms = (x: number) => `${(x * 1000).toFixed(1)} µs`
  const [earlyCpu, lateCpu] = [median(early.map((c) => c.cpu)), median(late.map((c) => c.cpu))]
  line('CPU per turn, turns 1-50 of 400-turn replies', ms(earlyCpu))
  line('CPU per turn, turns 351-400 of the same replies', ms(lateCpu))
  line('ratio late / early turns, CPU time', (lateCpu / earlyCpu).toFixed(2), '≤ 1.2')
  line('GC per turn (mean), turns 1-50 / 351-400', `${ms(mean(early.map((c) => c.gc)))} / ${ms(mean(late.map((c) => c.gc)))}`)
}
