// Does a tool-loop turn cost more late in a long reply? Times each model turn of 400-turn replies
// (from one model call to the next) and takes out the garbage collection that fell inside it
// (PerformanceObserver 'gc' entries), then compares the first 50 turns with the last 50. The
// whole-reply ratio in toolLoop.ts also measures how much of a reply fits in V8's young
// generation; this figure is the work per turn alone.
import { PerformanceObserver } from 'node:perf_hooks'
import { z } from 'zod'
import { callTool, createAgent, defineTool, say, UserMsg, type ChatModel } from '../lib/index.js'
import { line, median, now } from './helpers.js'

const TURNS = 400
const WINDOW = 50
const REPLIES = 12

const tool = defineTool({ name: 'noop', description: 'does nothing', input: z.object({ i: z.number() }), execute: () => 'ok' })

/** When each model call of one reply started, in performance.now() milliseconds. */
const turnStarts = async (): Promise<number[]> => {
  const script = Array.from({ length: TURNS }, (_, i) => [...say('a b c d e', 5), ...callTool(`c-${i}`, 'noop', { i })])
  script.push(say('done'))
  const starts: number[] = []
  const model: ChatModel = {
    name: 'timed',
    async *stream() {
      starts.push(now())
      yield* script[starts.length - 1]
    },
  }
  const agent = createAgent({ name: 'bench', model, tools: [tool], maxIters: TURNS + 5 })
  await agent.reply(UserMsg({ content: 'loop' }))
  return starts
}

const mean = (xs: number[]) => xs.reduce((sum, x) => sum + x, 0) / xs.length

/** Milliseconds of work (collection taken out) and of collection, per turn, over turns [from, to). */
const windowCost = (starts: number[], gcs: { start: number; duration: number }[], from: number, to: number) => {
  let gc = 0
  for (const { start, duration } of gcs) if (start >= starts[from] && start < starts[to]) gc += duration
  const wall = starts[to] - starts[from]
  return { work: (wall - gc) / (to - from), gc: gc / (to - from) }
}

export const turnGrowth = async () => {
  const gcs: { start: number; duration: number }[] = []
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) gcs.push({ start: entry.startTime, duration: entry.duration })
  })
  observer.observe({ entryTypes: ['gc'] })
  await turnStarts()
  const replies: number[][] = []
  for (let i = 0; i < REPLIES; i++) replies.push(await turnStarts())
  // GC entries are delivered asynchronously: let the last ones arrive.
  await new Promise((resolve) => setTimeout(resolve, 50))
  observer.disconnect()
  const early = replies.map((starts) => windowCost(starts, gcs, 0, WINDOW))
  const late = replies.map((starts) => windowCost(starts, gcs, TURNS - WINDOW, TURNS))
  const ms = (x: number) => `${(x * 1000).toFixed(1)} µs`
  line('work per turn, turns 1-50 of 400 (GC taken out)', ms(median(early.map((c) => c.work))))
  line('work per turn, turns 351-400 of 400 (GC taken out)', ms(median(late.map((c) => c.work))))
  line('ratio late / early turns, work alone', median(late.map((c, i) => c.work / early[i].work)).toFixed(2), '≤ 1.2')
  line('GC per turn (mean), turns 1-50 / 351-400', `${ms(mean(early.map((c) => c.gc)))} / ${ms(mean(late.map((c) => c.gc)))}`)
}
