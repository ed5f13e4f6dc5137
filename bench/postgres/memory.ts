// Memory of a hub on PostgreSQL that has served many sessions, live ones capped by maxLive: the
// heap after a full GC at checkpoints, and its growth per session served (the goal: flat).
import { createHub, type SessionInfo } from '../../lib/index.js'
import { fastModel, freshStore } from './shared.js'

const heap = () => {
  const gc = (globalThis as { gc?: () => void }).gc
  gc?.()
  gc?.()
  return process.memoryUsage().heapUsed
}

export const hubMemory = async (served = 10_000, maxLive = 100, parallel = 25) => {
  if (!(globalThis as { gc?: unknown }).gc) return ['Hub memory: skipped (run with node --expose-gc, as npm run bench:postgres does)']
  const store = await freshStore({ snapshots: false })
  const hub = createHub({ store, agent: () => ({ name: 'Bench', model: fastModel(3) }), maxLive })
  const checkpoints = [served / 10, served / 4, served / 2, served].map((c) => Math.round(c / parallel) * parallel)
  const figures: [number, number][] = []
  const started = performance.now()
  for (let done = 0; done < served; done += parallel) {
    await Promise.all(Array.from({ length: Math.min(parallel, served - done) }, async (_, i) => {
      const info: SessionInfo = await hub.create({ session_id: `m${done + i}` })
      await hub.session(info.session_id).reply('hi')
    }))
    const now = done + parallel
    if (checkpoints.includes(now)) figures.push([now, heap()])
  }
  const seconds = (performance.now() - started) / 1000
  await hub.close()
  const [[n0, h0], [n1, h1]] = [figures[0], figures.at(-1)!]
  return [
    `Hub memory, ${served.toLocaleString('en')} sessions served (a reply each), maxLive ${maxLive}, ${parallel} at a time, ${seconds.toFixed(1)} s:`,
    ...figures.map(([n, h]) => `  after ${String(n).padStart(6)} sessions: heap ${(h / 2 ** 20).toFixed(1)} MB`),
    `  growth from ${n0} to ${n1} sessions: ${((h1 - h0) / (n1 - n0)).toFixed(0)} bytes per session served (goal: flat, about 0)`,
  ]
}
