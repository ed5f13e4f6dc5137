// The crash harness: runs the crash child on a fresh log, kills it with SIGKILL at a random
// moment after its first acknowledged event, then checks the reopened log: no acknowledged event
// lost, the invariants hold, replay(log) = state, and a next reply completes.
import { spawn } from 'node:child_process'
import path from 'node:path'
import * as assert from 'uvu/assert'
import { createAgent, replay, say, scriptedModel, UserMsg } from '../../../lib/index.js'
import { fileLog } from '../../../lib/stores/file/index.js'
import { readLogFile } from '../../../lib/stores/file/read.js'
import { assertConsistent } from './agents.js'
import { childArgs } from './child.js'
import { crashTools } from './crashScript.js'

/** A seeded random number generator (mulberry32), so a failing run can be replayed. */
export const random = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

export interface CrashRun { file: string; acked: Map<number, string>; killedAfterMs: number }

export const crashOnce = async (file: string, killAfterMs: number): Promise<CrashRun> => {
  const args = [...await childArgs('crashChild.ts'), file]
  return new Promise((resolve, reject) => killChild(args, file, killAfterMs, resolve, reject))
}

const killChild = (args: string[], file: string, killAfterMs: number, resolve: (run: CrashRun) => void, reject: (error: Error) => void) => {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  let timer: NodeJS.Timeout | undefined
  const watchdog = setTimeout(() => child.kill('SIGKILL'), 15_000)
  child.stdout.on('data', (data: Buffer) => {
    out += data
    if (timer === undefined && out.includes('\n')) timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs)
  })
  child.stderr.on('data', (data: Buffer) => (err += data))
  child.on('error', reject)
  child.on('close', (code, signal) => {
    clearTimeout(watchdog)
    if (signal !== 'SIGKILL' || timer === undefined) return reject(new Error(`the crash child ended by itself (code ${code}, signal ${signal}): ${err}`))
    const acked = new Map<number, string>()
    for (const line of out.split('\n').slice(0, -1)) {
      const [seq, id] = line.split(' ')
      acked.set(Number(seq), id)
    }
    resolve({ file, acked, killedAfterMs: killAfterMs })
  })
}

export interface CrashCheck { events: number; cutMidReply: boolean; tornTail: boolean }

/** Reopens a killed child's log and checks everything the crash spec promises. */
export const checkCrash = async ({ file, acked }: CrashRun, label: string): Promise<CrashCheck> => {
  const log = fileLog(file, { durability: 'always' })
  assert.ok(log.recovered.some((r) => r.kind === 'stale-lock'), `${label}: the dead child's lock is taken over and reported`)
  const events = log.events
  for (const [seq, id] of acked) assert.is(events[seq - 1]?.id, id, `${label}: acknowledged event ${seq} is in the reopened log`)
  const cutMidReply = replay(events).status === 'running'
  const agent = createAgent({ name: 'crash', model: scriptedModel([say('Recovered and done.', 3)]), tools: crashTools(), log })
  assert.is(agent.state.status, 'idle', `${label}: the cut reply is closed on open`)
  assertConsistent(agent, `${label} after reopening:`)
  const msg = await agent.reply(UserMsg({ content: 'Go on.' }))
  assert.is(msg.finished_reason, 'completed', `${label}: the next reply completes`)
  assertConsistent(agent, `${label} after the next reply:`)
  const written = JSON.parse(JSON.stringify(agent.log))
  await agent.close()
  const reread = readLogFile(file)
  assert.is(reread.torn, null, `${label}: the log ends cleanly after close`)
  assert.equal(reread.events, written, `${label}: the file holds exactly the agent's log`)
  return { events: events.length, cutMidReply, tornTail: log.recovered.some((r) => r.kind === 'torn-tail') }
}

/** Runs `runs` crashes, `parallel` at a time, each killed 0..maxDelayMs after its first event. */
export const crashMany = async (dir: string, runs: number, { seed = Date.now(), parallel = 3, maxDelayMs = 400 } = {}) => {
  const rand = random(seed)
  const delays = Array.from({ length: runs }, () => Math.floor(rand() * maxDelayMs))
  const results: CrashCheck[] = []
  let next = 0
  const worker = async () => {
    while (next < runs) {
      const i = next++
      const run = await crashOnce(path.join(dir, `crash-${i}.jsonl`), delays[i])
      results.push(await checkCrash(run, `run ${i} (seed ${seed}, killed ${delays[i]} ms after the first event)`))
    }
  }
  await Promise.all(Array.from({ length: parallel }, worker))
  return results
}
