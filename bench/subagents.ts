// `npm run bench:subagents`: (a) Stop latency of a tree of depth 3 with 8 streaming leaves, against
// a top-level agent with 8 running tools stopped the same way; (b) the cost per model text delta of
// a child (its log and its parent's call both record it) against a top-level agent streaming the same
// deltas, end to end, wall and CPU time, with every delta in one task and with one delta per task; (c) heap kept per
// finished child reachable from its parent, early and late in a long-lived parent. Prints figures
// and ratios measured in this run; asserts nothing about time. (d) Stop of the same tree on
// PostgreSQL with the Stop sent from another process (bench/postgres/tree.ts; skipped when the
// server at DATABASE_URL is down).
import { z } from 'zod'
import { sleep } from '../lib/core/abort.js'
import { agentTool, callTool, createAgent, defineTool, say, type Agent, type ChatModel, type ModelChunk, type Tool } from '../lib/index.js'
import { treeStopLatency } from './postgres/tree.js'
import { DATABASE_URL, dropSchemas } from './postgres/shared.js'
import pg from 'pg'
import { cpuNow, fastModel, line, median, now, onePerTask, ratio, textDeltas, us, type Figure } from './helpers.js'

/** A model that streams text until it is stopped, one delta per millisecond. */
const endless: ChatModel = {
  name: 'endless',
  async *stream(_request, { signal }) {
    for (;;) {
      await sleep(1, signal)
      yield { type: 'text', delta: 'word ' }
    }
  },
}

/** An agent tool whose child calls `fanout` copies of `inner` at once, or streams forever (a leaf). */
const level = (depth: number, fanout: number): Tool => agentTool({
  name: `level${depth}`, description: 'Delegates', concurrencySafe: true,
  agent: () => depth === 3
    ? { name: 'Leaf', model: endless }
    : { name: `Level${depth}`, tools: [level(depth + 1, fanout)], model: fastModel([Array.from({ length: fanout }, (_, i) => callTool(`c${i}`, `level${depth + 1}`, { task: 't' })).flat(), say('ok')]) },
})

const leaves = (agent: Agent): Agent[] => (agent.children().length ? agent.children().flatMap(leaves) : [agent])

const until = async (condition: () => boolean) => {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 1))
}

const stopTree = async (runs: number) => {
  const times: number[] = []
  for (let i = 0; i < runs; i++) {
    // root -> 2 -> 2 -> 2: eight leaves at depth 3.
    const root = createAgent({ name: 'Root', tools: [level(1, 2)], model: fastModel([[...callTool('r0', 'level1', { task: 't' }), ...callTool('r1', 'level1', { task: 't' })], say('ok')]) })
    const done = (async () => {
      for await (const event of root.replyStream('go')) if (event.type === 'REPLY_END') return now()
      return now()
    })()
    await until(() => { const l = leaves(root); return l.length === 8 && l.every((a) => a.log.some((e) => e.type === 'TEXT_BLOCK_DELTA')) })
    const stoppedAt = now()
    await root.interrupt()
    times.push((await done) - stoppedAt)
  }
  return times
}

const stopFlat = async (runs: number) => {
  const tool = defineTool({
    name: 'work', description: 'works', input: z.object({ n: z.number() }), concurrencySafe: true,
    execute: async function* (_input, { signal }) {
      for (;;) {
        await sleep(1, signal)
        yield 'word '
      }
    },
  })
  const times: number[] = []
  for (let i = 0; i < runs; i++) {
    const agent = createAgent({ name: 'Flat', tools: [tool], model: fastModel([Array.from({ length: 8 }, (_, n) => callTool(`c${n}`, 'work', { n })).flat()]) })
    let deltas = 0
    const done = (async () => {
      for await (const event of agent.replyStream('go')) {
        if (event.type === 'TOOL_RESULT_TEXT_DELTA') deltas++
        if (event.type === 'REPLY_END') return now()
      }
      return now()
    })()
    await until(() => deltas >= 8)
    const stoppedAt = now()
    await agent.interrupt()
    times.push((await done) - stoppedAt)
  }
  return times
}

/**
 * (b): the same `deltas` model text deltas streamed by a top-level agent (its follower reads its
 * TEXT_BLOCK_DELTAs) and by a child inside an agentTool call (the child's log records each delta;
 * the parent's follower reads the call's TOOL_RESULT_TEXT_DELTAs), end to end from the reply's start
 * to its end, per model delta, wall and CPU time. Rounds interleave the two, after one warm-up each.
 */
const deltaCost = async (deltas: number, rounds: number, paced: boolean) => {
  const chunks: ModelChunk[] = textDeltas(deltas)
  const model = () => (paced ? onePerTask(chunks) : fastModel([chunks]))
  let parentDeltas = 0
  const timed = async (agent: Agent): Promise<Figure> => {
    const wall = now()
    const cpu = cpuNow()
    let seen = 0
    for await (const event of agent.replyStream('go')) if (event.type === 'TOOL_RESULT_TEXT_DELTA') seen++
    const figure = { wall: ((now() - wall) / deltas) * 1000, cpu: ((cpuNow() - cpu) / deltas) * 1000 }
    parentDeltas = seen
    return figure
  }
  const topLevel = () => timed(createAgent({ name: 'Top', model: model() }))
  const child = async () => {
    const tool = agentTool({ name: 'sub', description: 'Sub', agent: { name: 'Child', model: model() } })
    const parent = createAgent({ name: 'Parent', tools: [tool], model: fastModel([callTool('c', 'sub', { task: 't' }), say('ok')]) })
    const figure = await timed(parent)
    const text = parent.log.filter((e) => e.type === 'TOOL_RESULT_TEXT_DELTA').map((e) => (e as { delta: string }).delta).join('')
    if (text !== chunks.map((c) => (c as { delta: string }).delta).join('')) throw new Error('the call\'s result is not the child\'s text')
    return figure
  }
  await topLevel()
  await child()
  const top: Figure[] = []
  const sub: Figure[] = []
  for (let i = 0; i < rounds; i++) {
    top.push(await topLevel())
    sub.push(await child())
  }
  const mid = (figures: Figure[]): Figure => ({ wall: median(figures.map((f) => f.wall)), cpu: median(figures.map((f) => f.cpu)) })
  return { top: mid(top), sub: mid(sub), parentDeltas }
}

const printDeltaCost = (title: string, deltas: number, rounds: number, { top, sub, parentDeltas }: Awaited<ReturnType<typeof deltaCost>>) => {
  console.log(`\n(b) Cost per model text delta, ${title}: ${deltas.toLocaleString()} deltas, median of ${rounds}; wall / CPU time`)
  line('top-level agent (its follower reads each delta)', us(top))
  line('child in an agentTool call (child log + parent call result)', us(sub))
  line(`  TOOL_RESULT_TEXT_DELTAs the parent's follower read`, parentDeltas.toLocaleString())
  line('ratio child / top-level', ratio(sub, top), '≤ 1.2')
}

const heap = () => {
  globalThis.gc?.()
  globalThis.gc?.()
  return process.memoryUsage().heapUsed
}

const memoryPerChild = async (total: number, window: number) => {
  const tool = agentTool({ name: 'sub', description: 'Sub', agent: { name: 'Child', model: fastModel([say('a finished answer of a few words', 8)]) } })
  const parent = createAgent({ name: 'Parent', tools: [tool], model: fastModel([callTool('c', 'sub', { task: 't' }), say('ok')]) })
  const perChild: { at: number; bytes: number }[] = []
  let before = heap()
  for (let i = 1; i <= total; i++) {
    await parent.reply(`task ${i}`)
    if (i % window === 0) {
      const after = heap()
      perChild.push({ at: i, bytes: (after - before) / window })
      before = heap()
    }
  }
  return { perChild, children: parent.children().length }
}

console.log(`agentlog sub-agent benchmarks on Node ${process.version}${globalThis.gc ? '' : ' (run with --expose-gc for memory figures)'}`)

const tree = await stopTree(40)
const flat = await stopFlat(40)
console.log('\n(a) Stop latency: interrupt() to the REPLY_END of the root (the last of the tree), 40 runs')
line('depth-3 tree, 8 streaming leaves (15 agents): median', `${(median(tree) * 1000).toFixed(0)} µs`, '< 5 ms')
line('baseline: one agent, 8 streaming tools: median', `${(median(flat) * 1000).toFixed(0)} µs`)
line('ratio tree / baseline', `${(median(tree) / median(flat)).toFixed(2)}×`)

printDeltaCost('every delta in one task (a model with no delay)', 20_000, 5, await deltaCost(20_000, 5, false))
printDeltaCost('one delta per task (one network read each)', 20_000, 9, await deltaCost(20_000, 9, true))

if (globalThis.gc) {
  const { perChild, children } = await memoryPerChild(600, 200)
  console.log(`\n(c) Heap kept per finished child reachable from its parent (${children} children, one per reply)`)
  for (const { at, bytes } of perChild) line(`children ${at - 199}-${at}`, `${(bytes / 1024).toFixed(1)} KiB/child`)
  line('ratio last / first window', `${(perChild.at(-1)!.bytes / perChild[0].bytes).toFixed(2)}×`, 'flat (≈ 1×)')
}

const postgresUp = async () => {
  const client = new pg.Client({ connectionString: DATABASE_URL, connectionTimeoutMillis: 2000 })
  try {
    await client.connect()
    return true
  } catch {
    return false
  } finally {
    await client.end().catch(() => {})
  }
}

console.log('')
if (!(await postgresUp())) console.log(`(d) skipped: PostgreSQL is not reachable at ${DATABASE_URL}`)
else {
  try {
    for (const text of await treeStopLatency(15)) console.log(text)
  } finally {
    await dropSchemas()
  }
}
process.exit(0)
