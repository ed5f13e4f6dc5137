// npm run bench:directory: listing 1,000 sessions of a directory store (400 events each), as
// GET /sessions does: the latency, and the longest the event loop was held meanwhile. Against a
// baseline measured in the same run: listing by reading and folding every log (what the store did
// before it kept a summary per session). Also the first listing of logs that have no summary yet
// (written by an older agentlog), which reads each log once. Prints figures; asserts nothing.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { directoryStore } from '../lib/node.js'
import { readLogFile } from '../lib/stores/file/read.js'
import { statusAfter } from '../lib/stores/sessions.js'
import type { ReplyStatus } from '../reducers/state.js'
import { conversationLog, median, now } from './helpers.js'

const SESSIONS = Number(process.env.SESSIONS ?? 1000)
const ROUNDS = 5
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentlog-bench-dir-'))
const ms = (x: number) => `${x.toFixed(1)} ms`

/** Runs `list` ROUNDS times: the median latency and the longest event-loop delay seen. */
const measure = async (list: () => Promise<unknown>) => {
  const times: number[] = []
  const delay = monitorEventLoopDelay({ resolution: 1 })
  delay.enable()
  for (let i = 0; i < ROUNDS; i++) {
    const started = now()
    await list()
    times.push(now() - started)
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
  delay.disable()
  return { latency: median(times), blocked: delay.max / 1e6 }
}

try {
  const store = directoryStore(dir)
  const events = conversationLog(100).events
  for (let i = 0; i < SESSIONS; i++) {
    const id = `s${String(i).padStart(5, '0')}`
    await store.create({ session_id: id })
    const log = await store.open(id)
    log.append(events, { expectedSeq: 0 })
    await log.close()
  }
  const bytes = fs.readdirSync(dir).reduce((sum, f) => sum + fs.statSync(path.join(dir, f)).size, 0)
  process.stdout.write(`Directory listing, ${SESSIONS} sessions of ${events.length} events (${(bytes / 1e6).toFixed(0)} MB), median of ${ROUNDS}:\n`)

  await store.list({ limit: 1000 }) // warm-up (compilation), not timed
  const all = await measure(() => store.list({ limit: 1000 }))
  const page = await measure(() => store.list({ limit: 100 }))
  const baseline = await measure(async () => {
    const ids = fs.readdirSync(dir).filter((f) => f.endsWith('.session.json')).map((f) => f.slice(0, -'.session.json'.length)).sort()
    return ids.map((id) => {
      let status: ReplyStatus = 'idle'
      const { events: all } = readLogFile(path.join(dir, `${id}.jsonl`))
      for (const event of all) status = statusAfter(status, event.type)
      return { id, status, last_seq: all.length }
    })
  })
  for (const f of fs.readdirSync(dir)) if (f.endsWith('.summary')) fs.rmSync(path.join(dir, f))
  const first = await measure(async () => {
    for (const f of fs.readdirSync(dir)) if (f.endsWith('.summary')) fs.rmSync(path.join(dir, f))
    await store.list({ limit: 1000 })
  })
  // The same measure with nothing to do: what a loaded machine's scheduler alone adds.
  const idle = await measure(() => new Promise((resolve) => setTimeout(resolve, Math.max(1, all.latency))))
  await store.close()

  process.stdout.write(`  list, one page of ${SESSIONS}:   ${ms(all.latency)}, event loop held at most ${ms(all.blocked)}\n`)
  process.stdout.write(`  list, a page of 100:        ${ms(page.latency)}, event loop held at most ${ms(page.blocked)}\n`)
  process.stdout.write(`  baseline, fold every log:   ${ms(baseline.latency)}, event loop held at most ${ms(baseline.blocked)}\n`)
  process.stdout.write(`  ratio: the summary listing takes ${(all.latency / baseline.latency).toFixed(3)}x the baseline's time, holds the loop ${(all.blocked / baseline.blocked).toFixed(3)}x as long\n`)
  process.stdout.write(`  noise floor (idle as long):  event loop held at most ${ms(idle.blocked)}\n`)
  process.stdout.write(`  no summaries yet (logs of an older agentlog): ${ms(first.latency)}, event loop held at most ${ms(first.blocked)}\n`)
} finally {
  fs.rmSync(dir, { recursive: true, force: true })
}
