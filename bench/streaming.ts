// Streaming cost: per text delta end to end (model chunk to the consumer's for await), against a
// bare async-generator loop and a minimal Redux-plus-RxJS store (bench/baseline.ts) fed the same
// deltas; with a context of 10 and of 5,000 messages, and into a reply that already holds 10 and
// 2,000 blocks (per-delta work must not grow with either).
import { createAgent, UserMsg, type ModelChunk } from '../lib/index.js'
import { reduxRxjsBaseline } from './baseline.js'
import { conversationLog, fastModel, line, now } from './helpers.js'

const DELTAS = 100_000
const deltas: ModelChunk[] = Array.from({ length: DELTAS }, (_, i) => ({ type: 'text', delta: `w${i % 10} ` }))

const bare = async () => {
  async function* source() {
    yield* deltas
  }
  let chars = 0
  const start = now()
  for await (const chunk of source()) if (chunk.type === 'text') chars += chunk.delta.length
  return ((now() - start) / DELTAS) * 1000
}

/** `blocks - 1` one-delta blocks (thinking and text in turn, ending on thinking), then DELTAS deltas into one more text block. */
const turn = (blocks: number): ModelChunk[] => [
  ...Array.from({ length: blocks - 1 }, (_, i): ModelChunk => ({ type: (blocks - 1 - i) % 2 === 1 ? 'thinking' : 'text', delta: 'x' })),
  ...deltas,
]

/**
 * Microseconds per delta of the last block, timed from that block's start to the reply's end.
 * `watched`: a state$ subscriber receives every state (so each delta publishes a fresh one).
 */
const agentRun = async (contextMessages: number, blocks = 1, watched = false) => {
  const agent = createAgent({ name: 'bench', model: fastModel([blocks === 1 ? deltas : turn(blocks)]), log: conversationLog(contextMessages) })
  let states = 0
  const subscription = watched ? agent.state$.subscribe(() => void states++) : null
  let started = 0
  let seen = 0
  let start = blocks === 1 ? now() : 0
  for await (const event of agent.replyStream(UserMsg({ content: 'stream' }))) {
    if ((event.type === 'TEXT_BLOCK_START' || event.type === 'THINKING_BLOCK_START') && ++started === blocks) start = now()
    if (started === blocks && event.type === 'TEXT_BLOCK_DELTA') seen++
  }
  const perDelta = ((now() - start) / DELTAS) * 1000
  subscription?.unsubscribe()
  if (watched && states < DELTAS) throw new Error(`the subscriber saw ${states} states`)
  if (seen !== DELTAS) throw new Error(`expected ${DELTAS} deltas, saw ${seen}`)
  return perDelta
}

const RUNS = 8

const cpuMs = () => {
  const { user, system } = process.cpuUsage()
  return (user + system) / 1000
}

/** CPU microseconds per delta over a whole run: less disturbed than wall time by other processes on a shared machine. */
const cpuOf = async (run: () => Promise<number>) => {
  const start = cpuMs()
  await run()
  return ((cpuMs() - start) / DELTAS) * 1000
}

export const streaming = async () => {
  console.log(`\nStreaming: ${DELTAS.toLocaleString()} text deltas in one reply (warmed up, best of ${RUNS}, interleaved)`)
  const runs = {
    bare, baseline: () => reduxRxjsBaseline(deltas), small: () => agentRun(10), large: () => agentRun(5000),
    fewBlocks: () => agentRun(10, 10), manyBlocks: () => agentRun(10, 2000),
    watchedFew: () => agentRun(10, 10, true), watchedMany: () => agentRun(10, 2000, true),
    baselineCpu: () => cpuOf(() => reduxRxjsBaseline(deltas)), smallCpu: () => cpuOf(() => agentRun(10)),
  }
  type Name = keyof typeof runs
  const figures = Object.fromEntries(Object.keys(runs).map((name) => [name, Infinity])) as Record<Name, number>
  for (const run of Object.values(runs)) await run()
  for (let i = 0; i < RUNS; i++) for (const [name, run] of Object.entries(runs)) figures[name as Name] = Math.min(figures[name as Name], await run())
  const { bare: bareUs, baseline, small, large, fewBlocks, manyBlocks, watchedFew, watchedMany, baselineCpu, smallCpu } = figures
  line('bare async-generator loop, per delta', `${bareUs.toFixed(3)} µs`)
  line('Redux + RxJS baseline (spreads, no log), per delta', `${baseline.toFixed(3)} µs`)
  line('agentlog end to end, context of 10 messages, per delta', `${small.toFixed(3)} µs`, '≤ 1.5 µs')
  line('agentlog / Redux + RxJS baseline', `${(small / baseline).toFixed(2)}`, '≤ 1.2')
  line('agentlog end to end, context of 5,000 messages, per delta', `${large.toFixed(3)} µs`)
  line('ratio 5,000 / 10 messages', `${(large / small).toFixed(2)}`, '≤ 1.2')
  line('agentlog, reply of 10 blocks, per delta', `${fewBlocks.toFixed(3)} µs`)
  line('agentlog, reply of 2,000 blocks, per delta', `${manyBlocks.toFixed(3)} µs`)
  line('ratio 2,000 / 10 blocks', `${(manyBlocks / fewBlocks).toFixed(2)}`, '≤ 1.2')
  line('with a state$ subscriber, reply of 10 blocks, per delta', `${watchedFew.toFixed(3)} µs`)
  line('with a state$ subscriber, reply of 2,000 blocks, per delta', `${watchedMany.toFixed(3)} µs`)
  line('with a state$ subscriber, ratio 2,000 / 10 blocks', `${(watchedMany / watchedFew).toFixed(2)}`)
  line('overhead over the bare loop', `${(small / bareUs).toFixed(1)}x`)
  line('CPU time per delta, Redux + RxJS baseline', `${baselineCpu.toFixed(3)} µs`)
  line('CPU time per delta, agentlog, context of 10 messages', `${smallCpu.toFixed(3)} µs`)
  line('CPU time, agentlog / baseline', `${(smallCpu / baselineCpu).toFixed(2)}`, '≤ 1.2')
}
