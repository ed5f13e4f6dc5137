// Random trees of sub-agents across processes, with faults: two or three hub processes on one
// PostgreSQL schema or one NATS store; random plans (depth <= 3, parallel calls, asking, external and
// counting tools at random depths) started, answered (from any process), interrupted and deleted at
// random, while owners are SIGKILLed (and restarted) and SIGSTOPped past their lease. Every tool run
// is counted in a file outside the agent. Afterwards: no call ran twice, every call that recorded a
// real result ran exactly once, every log passes strict replay and the checker, every pause and end a
// process was given is in the log, no session is running 5 s after the last fault, and what a tree
// waits for reads the same from every process as from the logs. The seed is printed; FUZZ_SEED
// replays a run, FUZZ_RUNS sets the scenarios per store (`npm run fuzz` runs more).
import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { checkLog, createHub, replay, type AgentEvent, type SessionStore } from '../../lib/index.js'
import { tempDir } from '../log/helpers/files.js'
import { startChild, type HubChild } from '../postgres/helpers/children.js'
import { DATABASE_URL, dropSchemas, freshStore as freshPostgres, newSchema, postgresAvailable } from '../postgres/helpers/db.js'
import { dropNames, freshStore as freshNats, natsAvailable, NATS_URL, newName } from '../nats/helpers/server.js'
import { FIXED_SEED } from './helpers/config.js'
import { planAgent, type Plan, type Step } from './helpers/planModel.js'

const test = suite('properties/tree-faults')
const childFile = path.join(path.dirname(fileURLToPath(import.meta.url)), 'helpers', 'faultChild.ts')
const seed0 = Number(process.env.FUZZ_SEED ?? FIXED_SEED)
// `npm test`: one scenario per store; `npm run fuzz`: FUZZ_RUNS scenarios, new ones started until FUZZ_TIME_LIMIT_MS.
const scenarios = Math.max(1, Number(process.env.FUZZ_RUNS ?? 1))
const timeLimit = Number(process.env.FUZZ_TIME_LIMIT_MS ?? 0)
const STEPS = 24
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A child's answer to one request, or a failure naming the request if none comes within `ms` (a hang is a finding). */
const answerOf = async (p: HubChild, op: string, session: string, extra: Record<string, unknown> = {}, ms = 30_000) => {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`${op} ${session} in ${p.pid} got no answer within ${ms} ms`)), ms) })
  try {
    return await Promise.race([p.request(op, session, extra).answer, late])
  } finally {
    clearTimeout(timer)
  }
}

const within = <T>(promise: Promise<T>, what: string, ms = 30_000): Promise<T> =>
  Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms).unref())])

/** mulberry32: a small seeded generator, so a printed seed replays the same scenario. */
const rng = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

const planOf = (random: () => number, depth = 0): Plan => {
  const steps: Step[] = []
  const n = 1 + Math.floor(random() * 3)
  for (let i = 0; i < n; i++) {
    const r = random()
    if (r < 0.25 && depth < 2) steps.push({ t: 'sub', p: planOf(random, depth + 1) })
    else if (r < 0.5) steps.push({ t: 'ask', ms: Math.floor(random() * 200) })
    else if (r < 0.7) steps.push({ t: 'ext' })
    else steps.push({ t: 'count', ms: Math.floor(random() * 300) })
  }
  return { c: steps }
}

interface World { kind: 'postgres' | 'nats'; name: string; url: string; store: SessionStore & { close(): Promise<void> }; env?: NodeJS.ProcessEnv }

const scenario = async (world: World, seed: number) => {
  const random = rng(seed)
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]
  const counterFile = path.join(tempDir(), 'runs.txt')
  writeFileSync(counterFile, '')
  const spawn = () => startChild(childFile, [world.name, world.url, counterFile])
  const procs: HubChild[] = await Promise.all(Array.from({ length: 2 + Math.floor(random() * 2) }, spawn))
  const everyone: HubChild[] = [...procs]
  const roots = ['r0', 'r1', 'r2']
  const deleted = new Set<string>()
  /** The reply requests by id: the root each was for. */
  const replies = new Map<number, string>()
  const stopped = new Set<HubChild>()
  for (const root of roots) await answerOf(procs[0], 'create', root)
  let lastFault = Date.now()
  const trace: string[] = []
  for (let step = 0; step < STEPS; step++) {
    const r = random()
    const proc = pick(procs.filter((p) => !stopped.has(p)))
    const live = roots.filter((id) => !deleted.has(id))
    const root = pick(live.length ? live : roots)
    if (r < 0.3) {
      const plan = planOf(random)
      trace.push(`reply ${root} via ${proc.pid}`)
      const { id, answer } = proc.request('reply', root, { input: `plan ${JSON.stringify(plan)}` })
      replies.set(id, root)
      void answer
    } else if (r < 0.55) {
      trace.push(`answer ${root} via ${proc.pid}`)
      void proc.request('answer', root, { pick: Math.floor(random() * 5), decision: random() < 0.7 ? 'approve' : 'deny' }).answer
    } else if (r < 0.65) {
      trace.push(`interrupt ${root} via ${proc.pid}`)
      void proc.request('interrupt', root).answer
    } else if (r < 0.75) {
      const victim = pick(procs)
      trace.push(`SIGKILL ${victim.pid}`)
      procs.splice(procs.indexOf(victim), 1)
      stopped.delete(victim)
      await victim.kill('SIGKILL')
      procs.push(await spawn())
      everyone.push(procs.at(-1)!)
      lastFault = Date.now()
    } else if (r < 0.85 && procs.filter((p) => !stopped.has(p)).length > 1) {
      const victim = pick(procs.filter((p) => !stopped.has(p) && p !== proc))
      const ms = 300 + Math.floor(random() * 2500)
      trace.push(`SIGSTOP ${victim.pid} for ${ms} ms`)
      stopped.add(victim)
      process.kill(victim.pid, 'SIGSTOP')
      setTimeout(() => {
        if (stopped.delete(victim)) process.kill(victim.pid, 'SIGCONT')
      }, ms)
      lastFault = Date.now() + ms
    } else if (r < 0.9 && live.length > 1) {
      trace.push(`delete ${root} via ${proc.pid}`)
      const answer = await answerOf(proc, 'delete', root)
      if (answer.ok) deleted.add(root)
    }
    await sleep(Math.floor(random() * 250))
  }
  for (const p of stopped) process.kill(p.pid, 'SIGCONT')
  stopped.clear()
  lastFault = Math.max(lastFault, Date.now())
  const context = `seed ${seed} on ${world.kind}; steps:\n  ${trace.join('\n  ')}`

  // No session running 5 s after the last fault (the sweepers close what a dead owner left).
  const listed = async () => (await world.store.list({ limit: 1000 })).items
  while (Date.now() < lastFault + 5000 && (await listed()).some((s) => s.status === 'running')) await sleep(100)
  const sessions = await listed()
  const running = sessions.filter((s) => s.status === 'running')
  const tails = await Promise.all(running.map(async (s) => `${s.session_id}: ${(await world.store.read(s.session_id)).slice(-6).map((e) => e.type).join(' ')}`))
  assert.equal(running.map((s) => s.session_id), [], `no session running 5 s after the last fault (${tails.join('; ')}) (${context})`)

  // Every log passes strict replay and the checker; each call ran at most once, and once if it recorded a real result.
  const runs = new Map<string, number>()
  for (const line of readFileSync(counterFile, 'utf8').split('\n').filter(Boolean)) runs.set(line, (runs.get(line) ?? 0) + 1)
  for (const [key, n] of runs) assert.is(n, 1, `${key} ran ${n} times (${context})`)
  const logs = new Map<string, AgentEvent[]>()
  for (const s of sessions) {
    const events = await world.store.read(s.session_id)
    logs.set(s.session_id, events)
    assert.not.throws(() => replay(events, undefined, { strict: true }), `strict replay of ${s.session_id} (${context})`)
    assert.equal(checkLog(events).violations, [], `checkLog of ${s.session_id} (${context})`)
    const names = new Map<string, string>()
    for (const e of events) if (e.type === 'TOOL_CALL_START') names.set(e.tool_call_id, e.tool_call_name)
    for (const e of events) {
      if (e.type !== 'TOOL_RESULT_END' || e.state !== 'success') continue
      const name = names.get(e.tool_call_id)
      if (name === 'count' || name === 'ask') assert.is(runs.get(`${s.session_id}/${e.tool_call_id}`), 1, `${s.session_id}/${e.tool_call_id} recorded a result, so it ran once (${context})`)
    }
  }
  // Every pause and end a process was given is in the log (of sessions not deleted since).
  for (const p of everyone) {
    for (const line of p.lines) {
      const acked = line.acked as { seq: number; type: string; reply_id: string } | undefined
      const root = line.id === undefined ? undefined : replies.get(line.id)
      if (!acked || !root || deleted.has(root)) continue
      const stored = logs.get(root)?.[acked.seq - 1] as (AgentEvent & { reply_id?: string }) | undefined
      assert.ok(stored?.type === acked.type && stored.reply_id === acked.reply_id, `${acked.type} ${acked.seq} of ${root}, given to ${p.pid}, is in the log (${context})`)
    }
  }
  // What a tree waits for reads the same in every process as from the logs.
  const reader = createHub({ store: world.store, agent: planAgent(() => {}), sweepMs: false })
  for (const root of roots.filter((id) => !deleted.has(id))) {
    const expected = (await within(reader.session(root).waiting(), `waiting() of ${root} read from the logs`)).map((c) => `${(c as { session_id?: string }).session_id ?? root}/${c.id}`).sort()
    for (const p of procs) {
      const answer = await answerOf(p, 'waiting', root)
      const seen = ((answer.waiting ?? []) as { id: string; session_id: string }[]).map((c) => `${c.session_id}/${c.id}`).sort()
      assert.equal(seen, expected, `waiting() of ${root} in ${p.pid} (${context})`)
    }
  }
  await reader.close().catch(() => {})
  for (const p of procs) await p.kill('SIGKILL')
}

const run = (world: () => Promise<World>, done: () => Promise<void>) => async () => {
  const started = Date.now()
  for (let i = 0; i < scenarios && (i === 0 || !timeLimit || Date.now() - started < timeLimit); i++) {
    const seed = seed0 + i
    const w = await world()
    process.stdout.write(`  tree-faults on ${w.kind}: seed ${seed} (FUZZ_SEED=${seed} replays it)\n`)
    try {
      await scenario(w, seed)
    } finally {
      await w.store.close().catch(() => {})
    }
  }
  await done()
}

if (postgresAvailable('spec/properties/treeFaults.spec.ts')) {
  test('random trees across processes on PostgreSQL with SIGKILL and SIGSTOP: nothing runs twice, every log holds', run(async () => {
    const schema = newSchema()
    return { kind: 'postgres', name: schema, url: DATABASE_URL, store: await freshPostgres({}, schema) }
  }, dropSchemas))
}
if (natsAvailable('spec/properties/treeFaults.spec.ts')) {
  test('random trees across processes on NATS with SIGKILL and SIGSTOP: nothing runs twice, every log holds', run(async () => {
    const name = newName()
    return { kind: 'nats', name, url: NATS_URL, store: freshNats({}, name) }
  }, dropNames))
}
test.run()
