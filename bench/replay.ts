// Benchmark of the file log (prints figures, asserts nothing about time): replay throughput of a
// 1,000,000-event JSONL log against JSON.parse of the same lines alone, the fold, restore time with
// and without a snapshot, bytes per event on disk, and peak memory. Each measurement runs in its
// own process, so its memory figures are its own. Run: npx tsx bench/replay.ts [EVENTS]
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { createAgent, replay, scriptedModel } from '../lib/index.js'
import { fileLog } from '../lib/stores/file/index.js'
import { acceptEvents, MARKER, readLogFile } from '../lib/stores/file/read.js'
import { scan } from '../lib/stores/file/scan.js'
import { generateEvents } from './generate.js'

interface Figures { ms: number; events: number; maxRssMB: number; heapUsedMB: number; note?: string }

const best = (runs: number, fn: () => void): number => {
  let min = Infinity
  for (let i = 0; i < runs; i++) {
    const t = performance.now()
    fn()
    min = Math.min(min, performance.now() - t)
  }
  return min
}

/** One measurement, run in a child process. */
const phases: Record<string, (file: string) => Figures | Promise<Figures>> = {
  parse(file) {
    const lines = fs.readFileSync(file, 'utf8').split('\n').slice(1, -1)
    const ms = best(2, () => {
      for (const line of lines) JSON.parse(line)
    })
    return { ms, events: lines.length, ...memory() }
  },
  'parse-keep'(file) {
    const lines = fs.readFileSync(file, 'utf8').split('\n').slice(1, -1)
    let kept: unknown[] = []
    const ms = best(1, () => {
      kept = []
      for (const line of lines) kept.push(JSON.parse(line))
    })
    return { ms, events: kept.length, ...memory() }
  },
  scan(file) {
    let events = 0
    const ms = best(2, () => {
      const fd = fs.openSync(file, 'r')
      events = 0
      scan(fd, file, { start: 0, firstLine: 1, accept: acceptEvents(file, 1, () => void events++) })
      fs.closeSync(fd)
    })
    return { ms, events, ...memory() }
  },
  load(file) {
    let events = 0
    const ms = best(1, () => void (events = readLogFile(file).events.length))
    return { ms, events, ...memory() }
  },
  fold(file) {
    const { events } = readLogFile(file)
    const ms = best(1, () => void replay(events))
    return { ms, events: events.length, ...memory() }
  },
  restore: (file) => restore(file, false),
  'restore-snapshot': (file) => restore(file, true),
}

const restore = async (file: string, snapshots: boolean): Promise<Figures> => {
  const t = performance.now()
  const log = fileLog(file, { snapshots: snapshots ? { every: Number.MAX_SAFE_INTEGER } : false })
  const agent = createAgent({ name: 'Friday', model: scriptedModel([]), log })
  const ms = performance.now() - t
  const at = log.snapshotSeq
  const figures = { ms, events: agent.state.seq, ...memory(), note: at ? `snapshot at ${at}, tail ${agent.state.seq - at}` : 'no snapshot' }
  if (snapshots) fs.rmSync(`${file}.lock`) // leave the snapshot as it is for a rerun (close would write a new one)
  else await log.close()
  return figures
}

const memory = () => ({
  maxRssMB: Math.round(process.resourceUsage().maxRSS / 1024),
  heapUsedMB: Math.round(process.memoryUsage().heapUsed / 2 ** 20),
})

const runPhase = (name: string, file: string): Figures => {
  const child = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--phase', name, file], { encoding: 'utf8', maxBuffer: 1 << 20 })
  if (child.status !== 0) throw new Error(`phase ${name} failed: ${child.stderr}`)
  return JSON.parse(child.stdout) as Figures
}

/** Writes a log of about `count` events; snapshots it `tail` events before the end. */
const writeLog = (file: string, count: number, tail: number) => {
  const fd = fs.openSync(file, 'w', 0o600)
  fs.writeSync(fd, MARKER)
  const events = generateEvents(count)
  let chunk = ''
  let n = 0
  let snapshotted = false
  for (const event of events) {
    chunk += `${JSON.stringify(event)}\n`
    n++
    if (chunk.length > 1 << 22) (fs.writeSync(fd, chunk), (chunk = ''))
    if (!snapshotted && n >= count - tail && event.type === 'REPLY_END') {
      fs.writeSync(fd, chunk)
      chunk = ''
      runPhase('snapshot', file)
      snapshotted = true
    }
  }
  fs.writeSync(fd, chunk)
  fs.closeSync(fd)
  return n
}

phases.snapshot = async (file) => {
  const t = performance.now()
  const log = fileLog(file, { snapshots: true })
  await log.close()
  return { ms: performance.now() - t, events: log.snapshotSeq, ...memory() }
}

export const main = async (count = Number(process.argv[2] ?? 1_000_000)) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentlog-bench-'))
  const file = path.join(dir, 'replay.jsonl')
  try {
    let t = performance.now()
    const events = writeLog(file, count, 10_000)
    const size = fs.statSync(file).size
    console.log(`log: ${events} events, ${(size / 2 ** 20).toFixed(1)} MiB, ${((size - MARKER.length) / events).toFixed(1)} bytes/event (written and snapshotted in ${((performance.now() - t) / 1000).toFixed(1)} s)`)
    // The baseline and the two figures compared with it run twice, interleaved: the best of each counts.
    const figures: Record<string, Figures> = {}
    for (const name of ['parse', 'scan', 'restore', 'parse', 'scan', 'restore', 'parse-keep', 'load', 'fold', 'restore-snapshot']) {
      const f = runPhase(name, file)
      if (!figures[name] || f.ms < figures[name].ms) figures[name] = f
    }
    const rate = (f: Figures) => Math.round(f.events / (f.ms / 1000))
    const row = (label: string, f: Figures, extra = '') =>
      console.log(`${label.padEnd(48)} ${(f.ms / 1000).toFixed(2).padStart(6)} s ${rate(f).toLocaleString('en').padStart(11)} ev/s  peak RSS ${String(f.maxRssMB).padStart(5)} MB  heap ${String(f.heapUsedMB).padStart(5)} MB ${extra}`)
    const ratio = (f: Figures) => `ratio ${(rate(f) / rate(figures.parse)).toFixed(2)}`
    row('JSON.parse of the lines alone (baseline)', figures.parse)
    row('JSON.parse of the lines, keeping the objects', figures['parse-keep'], ratio(figures['parse-keep']))
    row('replay: read + split + parse + check', figures.scan, ratio(figures.scan))
    row('the same, keeping the events (readLogFile)', figures.load, ratio(figures.load))
    row('fold: replay(events) into the state', figures.fold)
    row('restore, no snapshot: open + fold (createAgent)', figures.restore, ratio(figures.restore))
    row('restore, snapshot: open + tail fold', figures['restore-snapshot'], `(${figures['restore-snapshot'].note})`)
    t = figures.restore.ms / figures['restore-snapshot'].ms
    console.log(`snapshot speed-up of restore: ${t.toFixed(1)}x; snapshot file ${(fs.statSync(`${file}.snapshot`).size / 2 ** 20).toFixed(1)} MiB`)
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

const phase = process.argv.indexOf('--phase')
if (phase > 0) process.stdout.write(JSON.stringify(await phases[process.argv[phase + 1]](process.argv[phase + 2])))
else if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) await main()
