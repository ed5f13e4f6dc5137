// Streaming cost: per text delta end to end (model chunk to the consumer's for await), against a
// bare async-generator loop and a minimal Redux-plus-RxJS store (bench/baseline.ts) fed the same
// deltas; with a context of 10 and of 5,000 messages, into a reply that already holds 10 and 2,000
// blocks (per-delta work must not grow with either), and the same with a state$ subscriber: once
// with every delta in one task (the subscriber is given one state per run of deltas), once with
// each delta in a task of its own, as one network read per delta would bring them (each delta's
// state is published, so the content array is copied for it). Each figure is wall time and CPU
// time (steadier than wall time on a shared machine), best of RUNS.
import { createAgent, UserMsg, type ModelChunk } from '../lib/index.js'
import { reduxRxjsBaseline } from './baseline.js'
import { conversationLog, cpuNow, fastModel, line, now, onePerTask, ratio, textDeltas, us, type Figure } from './helpers.js'

const DELTAS = 100_000
const RUNS = 8
const deltas: ModelChunk[] = textDeltas(DELTAS)

/** Microseconds per delta since `at` (a `mark()`). */
const mark = () => ({ wall: now(), cpu: cpuNow() })
const perDelta = (at: Figure): Figure => ({ wall: ((now() - at.wall) / DELTAS) * 1000, cpu: ((cpuNow() - at.cpu) / DELTAS) * 1000 })

const bare = async (): Promise<Figure> => {
  async function* source() {
    yield* deltas
  }
  let chars = 0
  const start = mark()
  for await (const chunk of source()) if (chunk.type === 'text') chars += chunk.delta.length
  return perDelta(start)
}

const baseline = async (): Promise<Figure> => {
  const start = mark()
  await reduxRxjsBaseline(deltas)
  return perDelta(start)
}

/** `blocks - 1` one-delta blocks (thinking and text in turn, ending on thinking), then DELTAS deltas into one more text block. */
const turn = (blocks: number): ModelChunk[] => [
  ...Array.from({ length: blocks - 1 }, (_, i): ModelChunk => ({ type: (blocks - 1 - i) % 2 === 1 ? 'thinking' : 'text', delta: 'x' })),
  ...deltas,
]

/** States a state$ subscriber was given in the last watched run, per delta. */
const statesGiven = { inOneTask: 0, onePerTask: 0 }

/**
 * Per delta of the last block, timed from that block's start to the reply's end.
 * `watched`: a state$ subscriber is given the states ('in one task': the model yields every chunk at
 * once; 'one per task': each chunk in a task of its own, so every delta's state is published).
 */
const agentRun = async (contextMessages: number, blocks = 1, watched: false | keyof typeof statesGiven = false): Promise<Figure> => {
  const chunks = blocks === 1 ? deltas : turn(blocks)
  const model = watched === 'onePerTask' ? onePerTask(chunks) : fastModel([chunks])
  const agent = createAgent({ name: 'bench', model, log: conversationLog(contextMessages) })
  let states = 0
  const subscription = watched ? agent.state$.subscribe(() => void states++) : null
  let started = 0
  let seen = 0
  let start = mark()
  for await (const event of agent.replyStream(UserMsg({ content: 'stream' }))) {
    if ((event.type === 'TEXT_BLOCK_START' || event.type === 'THINKING_BLOCK_START') && ++started === blocks && blocks > 1) start = mark()
    if (started === blocks && event.type === 'TEXT_BLOCK_DELTA') seen++
  }
  const figure = perDelta(start)
  subscription?.unsubscribe()
  if (watched) statesGiven[watched] = states / DELTAS
  if (watched === 'onePerTask' && states < DELTAS) throw new Error(`the subscriber saw ${states} states`)
  if (seen !== DELTAS) throw new Error(`expected ${DELTAS} deltas, saw ${seen}`)
  return figure
}

const runs = {
  bare, baseline, small: () => agentRun(10), large: () => agentRun(5000),
  fewBlocks: () => agentRun(10, 10), manyBlocks: () => agentRun(10, 2000),
  watchedFew: () => agentRun(10, 10, 'inOneTask'), watchedMany: () => agentRun(10, 2000, 'inOneTask'),
  pacedFew: () => agentRun(10, 10, 'onePerTask'), pacedMany: () => agentRun(10, 2000, 'onePerTask'),
}
type Name = keyof typeof runs


export const streaming = async () => {
  console.log(`\nStreaming: ${DELTAS.toLocaleString()} text deltas in one reply (warmed up, best of ${RUNS}, interleaved); wall / CPU time`)
  const figures = Object.fromEntries(Object.keys(runs).map((name) => [name, { wall: Infinity, cpu: Infinity }])) as Record<Name, Figure>
  for (const run of Object.values(runs)) await run()
  for (let i = 0; i < RUNS; i++) {
    for (const [name, run] of Object.entries(runs)) {
      const figure = await run()
      const best = figures[name as Name]
      figures[name as Name] = { wall: Math.min(best.wall, figure.wall), cpu: Math.min(best.cpu, figure.cpu) }
    }
  }
  const f = figures
  line('bare async-generator loop, per delta', us(f.bare))
  line('Redux + RxJS baseline (spreads, no log), per delta', us(f.baseline))
  line('agentlog end to end, context of 10 messages, per delta', us(f.small), '≤ 1.5 µs')
  line('agentlog / Redux + RxJS baseline', ratio(f.small, f.baseline), '≤ 1.2')
  line('agentlog end to end, context of 5,000 messages, per delta', us(f.large))
  line('ratio 5,000 / 10 messages', ratio(f.large, f.small), '≤ 1.2')
  line('agentlog, reply of 10 blocks, per delta', us(f.fewBlocks))
  line('agentlog, reply of 2,000 blocks, per delta', us(f.manyBlocks))
  line('ratio 2,000 / 10 blocks', ratio(f.manyBlocks, f.fewBlocks), '≤ 1.2')
  line('with a state$ subscriber, reply of 10 blocks, per delta', us(f.watchedFew))
  line('with a state$ subscriber, reply of 2,000 blocks, per delta', us(f.watchedMany))
  line('with a state$ subscriber, ratio 2,000 / 10 blocks', ratio(f.watchedMany, f.watchedFew), '≤ 1.2')
  line('  states the subscriber was given, per delta', statesGiven.inOneTask.toFixed(4))
  line('one delta per task, with a subscriber, 10 blocks', us(f.pacedFew))
  line('one delta per task, with a subscriber, 2,000 blocks', us(f.pacedMany))
  line('one delta per task, ratio 2,000 / 10 blocks', ratio(f.pacedMany, f.pacedFew))
  line('  states the subscriber was given, per delta', statesGiven.onePerTask.toFixed(4))
  line('overhead over the bare loop', `${(f.small.wall / f.bare.wall).toFixed(1)}x`)
}
