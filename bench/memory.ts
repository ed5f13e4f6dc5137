// Memory: bytes the heap retains per streamed delta event once 1,000,000 of them sit in an
// in-memory log (everything retained counts: the log, the events, the reply's text in the state),
// against the bytes of the event's own JSON. Runs in its own process with --expose-gc, so the heap
// is its own. Run: node --expose-gc --import tsx bench/memory.ts [DELTAS]
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { createAgent, memoryLog, UserMsg, type ChatModel } from '../lib/index.js'
import { line } from './helpers.js'

const words = 'the of and to in is that it for as with was on be by this are from at or an which'.split(' ')

/** Streams `count` text deltas, each a fresh string as a network read would make it. */
const wordsModel = (count: number): ChatModel => ({
  name: 'words',
  async *stream() {
    for (let i = 0; i < count; i++) yield { type: 'text', delta: ` ${words[i % words.length]}${i % 7}` }
  },
})

const measure = async (count: number) => {
  const gc = (globalThis as { gc?: () => void }).gc
  if (!gc) throw new Error('run with --expose-gc')
  const log = memoryLog()
  const agent = createAgent({ name: 'bench', model: wordsModel(count), log })
  gc()
  const before = process.memoryUsage().heapUsed
  await agent.reply(UserMsg({ content: 'stream' }))
  gc()
  gc()
  const retained = process.memoryUsage().heapUsed - before
  let jsonBytes = 0
  let deltas = 0
  for (const event of log.events) if (event.type === 'TEXT_BLOCK_DELTA') (deltas++, (jsonBytes += Buffer.byteLength(JSON.stringify(event))))
  return { events: log.events.length, deltas, retainedPerEvent: retained / log.events.length, jsonPerDelta: jsonBytes / deltas }
}

export const memory = (count = 1_000_000) => {
  const child = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', fileURLToPath(import.meta.url), '--measure', String(count)], { encoding: 'utf8' })
  if (child.status !== 0) throw new Error(`the memory measurement failed: ${child.stderr}`)
  const figures = JSON.parse(child.stdout) as Awaited<ReturnType<typeof measure>>
  console.log(`\nMemory: one reply of ${figures.deltas.toLocaleString('en')} streamed text deltas in an in-memory log (${figures.events.toLocaleString('en')} events)`)
  line('heap retained per event (log, events, state)', `${figures.retainedPerEvent.toFixed(1)} B`, '≤ the JSON')
  line('JSON of a delta event', `${figures.jsonPerDelta.toFixed(1)} B`)
  line('retained / JSON', `${(figures.retainedPerEvent / figures.jsonPerDelta).toFixed(2)}`, '≤ 1')
}

const at = process.argv.indexOf('--measure')
if (at > 0) process.stdout.write(JSON.stringify(await measure(Number(process.argv[at + 1]))))
