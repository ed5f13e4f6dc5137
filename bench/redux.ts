// agentlog/redux cost: per streamed text delta, through a Redux Toolkit store (configureStore with
// the agents slice and middleware, RTK's default serializability and immutability checks on, then
// off) next to replyStream alone, with a context of 10 and of 5,000 messages: the late/early ratio
// (5,000 / 10) must stay flat (goal ≤ 1.5), since the slice freezes what a delta does not change.
// Wall / CPU time, best of RUNS. BENCH_REDUX_DELTAS sets the deltas per reply (default 20,000).
import { configureStore } from '@reduxjs/toolkit'
import { createAgent, UserMsg, type ModelChunk } from '../lib/index.js'
import { agentsMiddleware, agentsReducer } from '../lib/redux.js'
import { conversationLog, cpuNow, fastModel, line, now, ratio, textDeltas, us, type Figure } from './helpers.js'

const DELTAS = Number(process.env.BENCH_REDUX_DELTAS ?? 20_000)
const RUNS = Number(process.env.BENCH_REDUX_RUNS ?? 5)
const deltas: ModelChunk[] = textDeltas(DELTAS)

type Mode = 'alone' | 'checks on' | 'checks off'

/** Per delta, from the reply's first delta to its end, consumed by a for await (and folded in the store unless `alone`). */
const run = async (contextMessages: number, mode: Mode): Promise<Figure> => {
  const agent = createAgent({ name: 'bench', model: fastModel([deltas]), log: conversationLog(contextMessages) })
  const checks = mode === 'checks on'
  const store = mode === 'alone' ? null : configureStore({
    reducer: { agents: agentsReducer },
    middleware: (getDefault) => getDefault({ immutableCheck: checks ? { warnAfter: 10_000 } : false, serializableCheck: checks ? { warnAfter: 10_000 } : false }).concat(agentsMiddleware({ agents: { s: agent } })),
  })
  await Promise.resolve()
  let seen = 0
  let start = { wall: 0, cpu: 0 }
  for await (const event of agent.replyStream(UserMsg({ content: 'stream' }))) {
    if (event.type === 'TEXT_BLOCK_START') start = { wall: now(), cpu: cpuNow() }
    if (event.type === 'TEXT_BLOCK_DELTA') seen++
  }
  const figure = { wall: ((now() - start.wall) / DELTAS) * 1000, cpu: ((cpuNow() - start.cpu) / DELTAS) * 1000 }
  if (seen !== DELTAS) throw new Error(`expected ${DELTAS} deltas, saw ${seen}`)
  if (store && store.getState().agents.sessions.s.seq !== agent.log.length) throw new Error('the slice did not fold every event')
  return figure
}

const cases = {
  aloneEarly: () => run(10, 'alone'), aloneLate: () => run(5000, 'alone'),
  onEarly: () => run(10, 'checks on'), onLate: () => run(5000, 'checks on'),
  offEarly: () => run(10, 'checks off'), offLate: () => run(5000, 'checks off'),
}
type Name = keyof typeof cases

export const reduxCost = async () => {
  console.log(`\nagentlog/redux: ${DELTAS.toLocaleString()} text deltas per reply through configureStore (best of ${RUNS}, interleaved); wall / CPU time`)
  const best = Object.fromEntries(Object.keys(cases).map((name) => [name, { wall: Infinity, cpu: Infinity }])) as Record<Name, Figure>
  for (const c of Object.values(cases)) await c()
  for (let i = 0; i < RUNS; i++) {
    for (const [name, c] of Object.entries(cases)) {
      const figure = await c()
      const b = best[name as Name]
      best[name as Name] = { wall: Math.min(b.wall, figure.wall), cpu: Math.min(b.cpu, figure.cpu) }
    }
  }
  line('replyStream alone, context of 10, per delta', us(best.aloneEarly))
  line('replyStream alone, context of 5,000, per delta', us(best.aloneLate))
  line('configureStore, default checks on, context of 10', us(best.onEarly))
  line('configureStore, default checks on, context of 5,000', us(best.onLate))
  line('  checks on, ratio 5,000 / 10 (late / early)', ratio(best.onLate, best.onEarly), '≤ 1.5')
  line('configureStore, checks off, context of 10', us(best.offEarly))
  line('configureStore, checks off, context of 5,000', us(best.offLate))
  line('  checks off, ratio 5,000 / 10 (late / early)', ratio(best.offLate, best.offEarly), '≤ 1.5')
  line('  checks on / replyStream alone, context of 10', ratio(best.onEarly, best.aloneEarly))
  line('  checks off / replyStream alone, context of 10', ratio(best.offEarly, best.aloneEarly))
}

if (process.argv[1]?.endsWith('bench/redux.ts')) await reduxCost()
