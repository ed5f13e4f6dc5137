// Memory of one process's hub on a store: per live session (each opened by a reply and held, up to
// `live`), and per session after eviction, over `opened` sessions served with maxLive 100 (heap
// growth per session; the goal is flat). Heap after a full GC (needs node --expose-gc).
import { createHub, scriptedModel, say, type SessionStore } from '../../lib/index.js'

const heap = () => {
  const gc = (globalThis as { gc?: () => void }).gc
  gc?.()
  gc?.()
  return process.memoryUsage().heapUsed
}

const agent = () => ({ name: 'Bench', model: scriptedModel([say('ok', 3)], { onExhausted: 'repeat-last' }) })

const serve = async (from: number, count: number, hub: ReturnType<typeof createHub>, parallel = 25) => {
  for (let done = 0; done < count; done += parallel) {
    await Promise.all(Array.from({ length: Math.min(parallel, count - done) }, async (_, i) => {
      const { session_id } = await hub.create({ session_id: `m${from + done + i}` })
      await hub.session(session_id).reply('hi')
    }))
  }
}

export interface MemoryFigures { perLive: number; live: number; perIdle: number; opened: number; seconds: number }

export const sessionMemory = async (open: () => SessionStore, live: number, opened: number): Promise<MemoryFigures | null> => {
  if (!(globalThis as { gc?: unknown }).gc) return null
  const started = performance.now()
  const liveHub = createHub({ store: open(), agent, maxLive: Math.max(live * 2, 200), idleMs: 3_600_000 })
  await serve(0, 50, liveHub) // warm up (connections, code)
  const before = heap()
  await serve(50, live, liveHub)
  const perLive = (heap() - before) / live
  await liveHub.close()
  const hub = createHub({ store: open(), agent, maxLive: 100 })
  const warm = Math.min(1000, Math.floor(opened / 10))
  await serve(100_000, warm, hub)
  const h0 = heap()
  await serve(100_000 + warm, opened - warm, hub)
  const perIdle = (heap() - h0) / (opened - warm)
  await hub.close()
  return { perLive, live, perIdle, opened, seconds: (performance.now() - started) / 1000 }
}
