// `npm run bench:server`: 200 concurrent replies of 1,000 deltas each, streamed over SSE by the
// agentlog server to 200 fetch clients, against a bare node:http SSE server writing events of the
// same shape in the same run, batched as ours may be (the frames of one event-loop turn in one write);
// events per second and the delta latency (model chunk to client). Sizes: BENCH_CLIENTS=200
// BENCH_DELTAS=1000 BENCH_STOPS=100 BENCH_ROUNDS=3 (a quick check: BENCH_CLIENTS=10 BENCH_DELTAS=200
// BENCH_STOPS=5 BENCH_ROUNDS=1 npm run bench:server).
// Then Stop: POST /interrupt to REPLY_END at the client, p50 and p99. Prints figures, asserts nothing.
import { createServer as createHttpServer } from 'node:http'
import { cpus } from 'node:os'
import { createHub, createServer, memoryStore, type ChatModel } from '../lib/index.js'
import { readSse } from '../lib/client/sse.js'
import { listen } from '../lib/node.js'

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 200)
const DELTAS = Number(process.env.BENCH_DELTAS ?? 1000)
const STOPS = Number(process.env.BENCH_STOPS ?? 100)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN

/** A model that streams `count` text deltas, each carrying the time it was made; it pauses `pauseMs` before each, or yields to the loop every 50. */
const stampingModel = (count: number, pauseMs = 0): ChatModel => ({
  name: 'stamping',
  async *stream(_request, { signal }) {
    for (let i = 0; i < count && !signal.aborted; i++) {
      if (pauseMs) await new Promise((resolve) => setTimeout(resolve, pauseMs))
      else if (i % 50 === 49) await new Promise((resolve) => setImmediate(resolve))
      yield { type: 'text', delta: `${performance.now().toFixed(3)}|` }
    }
  },
})

interface Figures { events: number; seconds: number; latencies: number[] }

/** Reads SSE streams from `open()` on CLIENTS clients at once; a TEXT delta's stamp gives its latency. */
const drive = async (open: (i: number) => Promise<Response>): Promise<Figures> => {
  const latencies: number[] = []
  let events = 0
  const started = performance.now()
  await Promise.all(Array.from({ length: CLIENTS }, async (_, i) => {
    for await (const message of readSse(await open(i))) {
      events++
      const delta = (message.data as { delta?: string }).delta
      if (delta) latencies.push(performance.now() - Number(delta.slice(0, -1)))
    }
  }))
  return { events, seconds: (performance.now() - started) / 1000, latencies: latencies.sort((a, b) => a - b) }
}

const bareServer = async () => {
  const server = createHttpServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    let seq = 0
    // The same batching the agentlog server is allowed: the frames of one turn in one write.
    const write = () => {
      let frames = ''
      for (let n = 0; n < 50 && seq < DELTAS; n++) {
        seq++
        const event = { id: `e${seq}`, created_at: new Date().toISOString(), metadata: { seq }, type: 'TEXT_BLOCK_DELTA', reply_id: 'r', block_id: 'b', delta: `${performance.now().toFixed(3)}|` }
        frames += `id: ${seq}\ndata: ${JSON.stringify(event)}\n\n`
      }
      res.write(frames)
      if (seq < DELTAS) setImmediate(write)
      else res.end()
    }
    write()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address() as { port: number }
  return { url: `http://127.0.0.1:${address.port}`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) }
}

const report = (name: string, f: Figures) =>
  console.log(`  ${name.padEnd(22)} ${Math.round(f.events / f.seconds).toLocaleString('en').padStart(9)} events/s   delta latency p50 ${quantile(f.latencies, 0.5).toFixed(1)} ms, p99 ${quantile(f.latencies, 0.99).toFixed(1)} ms   (${f.events} events in ${f.seconds.toFixed(2)} s)`)

const post = (url: string, body: unknown) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })

export const serverBench = async () => {
  console.log(`agentlog server benchmark on Node ${process.version}, ${cpus().length} cores: ${CLIENTS} concurrent replies x ${DELTAS} deltas over SSE`)
  const bare = await bareServer()
  const hub = createHub({ store: memoryStore(), agent: () => ({ name: 'bench', model: stampingModel(DELTAS) }), maxLive: CLIENTS * 2 })
  const served = await listen(createServer({ hub, limits: { openReplies: CLIENTS * 2 } }), { port: 0 })
  try {
    const sessions = await Promise.all(Array.from({ length: CLIENTS }, async () => ((await (await post(`${served.url}/sessions`, {})).json()) as { session_id: string }).session_id))
    // Interleaved rounds: the machine is shared, so each ratio compares runs made close together.
    const ratios: number[] = []
    for (let round = 1; round <= ROUNDS; round++) {
      const bareFigures = await drive(() => fetch(`${bare.url}/`))
      const ours = await drive((i) => post(`${served.url}/sessions/${sessions[i]}/replies`, { input: `round ${round}` }))
      report(`bare node:http SSE #${round}`, bareFigures)
      report(`agentlog server #${round}`, ours)
      ratios.push(ours.events / ours.seconds / (bareFigures.events / bareFigures.seconds))
    }
    const sortedRatios = [...ratios].sort((a, b) => a - b)
    console.log(`  throughput ratio per round: ${ratios.map((r) => r.toFixed(2)).join(', ')}; median ${quantile(sortedRatios, 0.5).toFixed(2)}x the bare server (goal: at least 0.8x)`)
  } finally {
    await served.close()
    await hub.close()
    await bare.close()
  }

  const slowHub = createHub({ store: memoryStore(), agent: () => ({ name: 'bench', model: stampingModel(1_000_000, 20) }), maxLive: STOPS * 2 })
  const handler = createServer({ hub: slowHub, limits: { openReplies: STOPS * 2 } })
  const reached = new Map<string, number>()
  const timed = Object.assign(async (request: Request) => {
    if (request.url.endsWith('/interrupt')) reached.set(new URL(request.url).pathname.split('/')[2], performance.now())
    return handler(request)
  }, { authenticated: false })
  const slow = await listen(timed, { port: 0 })
  try {
    const stops = await Promise.all(Array.from({ length: STOPS }, async () => {
      const { session_id } = (await (await post(`${slow.url}/sessions`, {})).json()) as { session_id: string }
      const reply = await post(`${slow.url}/sessions/${session_id}/replies`, { input: 'go' })
      let deltas = 0
      let askedAt = 0
      for await (const message of readSse(reply)) {
        const type = (message.data as { type: string }).type
        if (type === 'TEXT_BLOCK_DELTA' && ++deltas === 20) {
          askedAt = performance.now()
          void post(`${slow.url}/sessions/${session_id}/interrupt`, {})
        }
        if (type === 'REPLY_END') return [performance.now() - askedAt, performance.now() - (reached.get(session_id) ?? NaN)]
      }
      return [NaN, NaN]
    }))
    const total = stops.map((s) => s[0]).sort((a, b) => a - b)
    const server = stops.map((s) => s[1]).sort((a, b) => a - b)
    console.log(`  Stop (POST /interrupt sent) to REPLY_END at the client, ${STOPS} replies at once: p50 ${quantile(total, 0.5).toFixed(1)} ms, p99 ${quantile(total, 0.99).toFixed(1)} ms`)
    console.log(`  the same from the request reaching the handler: p50 ${quantile(server, 0.5).toFixed(1)} ms, p99 ${quantile(server, 0.99).toFixed(1)} ms (the rest is the loopback connection of a loaded client in the same process)`)
  } finally {
    await slow.close()
    await slowHub.close()
  }
}

await serverBench()
