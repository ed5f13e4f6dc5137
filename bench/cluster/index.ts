// npm run bench:cluster: a fleet of `agentlog serve` processes on one store, under load and
// failure, on PostgreSQL and on NATS JetStream. Per store: C clients stream replies over HTTP
// across S sessions on one process (the baseline), then on P processes while one of them is
// SIGKILLed every T seconds and started again. Prints delivered events/s (total, per process, and
// the ratio to one process), cross-process Stop latency, failover time, the checks that must be 0
// (acknowledged events lost, logs failing strict replay, routed commands applied twice), and the
// memory per live and per idle session of one process, and the CPU per delivered event: the serve
// processes' user+system time summed over the fleet (from /proc), plus the database's or NATS
// server's when it runs on this machine (on a shared machine that includes others' load), with the
// fleet's ratio to one process (the goal: at most 1.3x). Prints figures; asserts nothing. The
// clients are closed-loop (the next turn starts when the last ended): until the machine saturates,
// events/s follows the latency of a turn.
// Env: STORES (postgres,nats), PROCESSES (3), CLIENTS (24), SESSIONS (48), BASE_S (10), RUN_S (30),
// KILL_EVERY_S (8), LIVE (1000), OPENED (10000).
import { checkLog } from '../../lib/core/logCheck.js'
import type { AgentEvent } from '../../lib/index.js'
import { percentile } from '../postgres/shared.js'
import { Fleet } from './fleet.js'
import { runLoad, type LoadFigures } from './load.js'
import { sessionMemory } from './memory.js'
import { serverCpuMs } from './cpu.js'
import { benchStore, type BenchStore } from './stores.js'

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback)
const P = env('PROCESSES', 3)
const C = env('CLIENTS', 24)
const S = env('SESSIONS', 48)
const BASE_S = env('BASE_S', 10)
const RUN_S = env('RUN_S', 30)
const KILL_EVERY_S = env('KILL_EVERY_S', 8)
const stores = (process.env.STORES ?? 'postgres,nats').split(',') as ('postgres' | 'nats')[]

const ms = (n: number | undefined) => (n === undefined ? 'n/a' : `${n.toFixed(n < 10 ? 1 : 0)} ms`)
const out = (line: string) => process.stdout.write(`${line}\n`)

const phase = async (store: BenchStore, processes: number, prefix: string, seconds: number, kill: boolean) => {
  const direct = store.open()
  await direct.migrate()
  const sessions = Array.from({ length: S }, (_, i) => `${prefix}${i}`)
  for (const s of sessions) await direct.create({ session_id: s })
  const fleet = new Fleet(store.args)
  await fleet.start(processes)
  const serverCpuAtStart = serverCpuMs(store.kind)
  const fleetCpuAtStart = fleet.cpuMs()
  let killing = kill
  let kills = 0
  const killer = (async () => {
    while (killing) {
      for (const due = Date.now() + KILL_EVERY_S * 1000; killing && Date.now() < due;) await new Promise((r) => setTimeout(r, 100))
      if (!killing) break
      const live = fleet.live()
      if (live.length < 2) continue
      kills++
      await fleet.kill(live[Math.floor(Math.random() * live.length)])
    }
  })()
  const started = performance.now()
  const figures = await runLoad(fleet, { clients: C, sessions, seconds })
  const elapsed = (performance.now() - started) / 1000
  killing = false
  await killer
  const serverCpu = serverCpuAtStart === null ? null : (serverCpuMs(store.kind) ?? serverCpuAtStart) - serverCpuAtStart
  const fleetCpu = fleet.cpuMs() - fleetCpuAtStart
  await fleet.stop()
  const check = await verify(direct, sessions, figures)
  await direct.close()
  return { figures, elapsed, kills, check, cpu: { fleet: fleetCpu, server: serverCpu } }
}

/** CPU µs per delivered event: the fleet's, and with the store's server when it runs here. */
const cpuPerEvent = (run: Awaited<ReturnType<typeof phase>>) => {
  const delivered = run.figures.delivered.reduce((a, b) => a + b, 0) || 1
  return { fleet: (run.cpu.fleet * 1000) / delivered, total: run.cpu.server === null ? null : ((run.cpu.fleet + run.cpu.server) * 1000) / delivered }
}
const us = (n: number | null) => (n === null ? 'n/a (server not local)' : `${n.toFixed(0)} µs`)

/** Reads every log back: acknowledged events present, strict replay passes, no routed command applied twice. */
const verify = async (store: ReturnType<BenchStore['open']>, sessions: string[], figures: LoadFigures) => {
  const logs = new Map<string, AgentEvent[]>()
  for (const s of sessions) logs.set(s, await store.read(s))
  let lost = 0
  for (const a of figures.acked) if (logs.get(a.session)?.[a.seq - 1]?.id !== a.id) lost++
  let invalid = 0
  let duplicated = 0
  for (const events of logs.values()) {
    if (checkLog(events).violations.length > 0) invalid++
    const requests = new Map<string, number>()
    for (const e of events) {
      const id = e.metadata.request_id
      if (typeof id === 'string') requests.set(id, (requests.get(id) ?? 0) + 1)
    }
    for (const count of requests.values()) if (count > 1) duplicated += count - 1
  }
  const events = [...logs.values()].reduce((sum, l) => sum + l.length, 0)
  return { lost, invalid, duplicated, events }
}

for (const kind of stores) {
  const store = benchStore(kind, kind)
  try {
    out(`== ${kind}: ${P} serve processes, ${C} clients, ${S} sessions; baseline ${BASE_S} s on one process, then ${RUN_S} s on ${P} with a SIGKILL every ${KILL_EVERY_S} s ==`)
    const base = await phase(store, 1, 'b', BASE_S, false)
    const baseRate = base.figures.delivered[0] / base.elapsed
    out(`one process:  ${baseRate.toFixed(0)} events/s delivered, ${base.figures.replies} replies, Stop (same process routed to itself) p50 ${ms(percentile(base.figures.stops, 50))}`)
    const run = await phase(store, P, 'f', RUN_S, true)
    const { figures } = run
    const total = figures.delivered.reduce((a, b) => a + b, 0) / run.elapsed
    out(`${P} processes: ${total.toFixed(0)} events/s delivered in total (${(total / baseRate).toFixed(2)}x one process), per process ${figures.delivered.map((d) => (d / run.elapsed).toFixed(0)).join(' / ')}; ${figures.replies} replies, ${run.kills} kills`)
    const baseCpu = cpuPerEvent(base)
    const runCpu = cpuPerEvent(run)
    out(`  CPU per delivered event: one process ${us(baseCpu.fleet)} (with the ${kind} server: ${us(baseCpu.total)}); ${P} processes ${us(runCpu.fleet)} (with the server: ${us(runCpu.total)}); ratio ${(runCpu.fleet / baseCpu.fleet).toFixed(2)}x${runCpu.total !== null && baseCpu.total !== null ? ` (with the server ${(runCpu.total / baseCpu.total).toFixed(2)}x)` : ''} (goal: at most 1.3x)`)
    out(`  Stop across processes: p50 ${ms(percentile(figures.stops, 50))}, p99 ${ms(percentile(figures.stops, 99))} (${figures.stops.length} stops)`)
    out(`  failover (kill to the cut reply's REPLY_END, or the next owner's REPLY_START when it never reached the log, seen on another process): p50 ${ms(percentile(figures.failovers, 50))}, max ${ms(Math.max(...figures.failovers, 0))} (${figures.failovers.length} cut replies of ${figures.cut} recovered; ${figures.behindLog} of them cut after events their client saw but the log never got)`)
    out(`  acknowledged events lost: ${base.check.lost + run.check.lost} of ${base.figures.acked.length + figures.acked.length}; logs failing strict replay: ${base.check.invalid + run.check.invalid} of ${2 * S}; routed commands applied twice: ${base.check.duplicated + run.check.duplicated}`)
    if (figures.errors.length) out(`  errors: ${figures.errors.length}, first: ${figures.errors[0]}`)
    const memory = await sessionMemory(() => store.open({ snapshots: false }), env('LIVE', 1000), env('OPENED', 10_000))
    out(memory
      ? `  memory of one process: ${(memory.perLive / 1024).toFixed(1)} KB per live session (${memory.live} held live); ${(memory.perIdle / 1024).toFixed(2)} KB per session after eviction over ${memory.opened.toLocaleString('en')} sessions opened (${memory.seconds.toFixed(0)} s)`
      : '  memory: skipped (run with node --expose-gc, as npm run bench:cluster does)')
  } finally {
    await store.drop()
  }
  out('')
}
process.exit(0)
