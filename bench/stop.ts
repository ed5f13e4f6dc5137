// `npm run bench:stop` (issue 29): does a Stop's latency depend on the load? One process serves N
// sessions (N = 1, 10, 100, 500), each streaming replies as fast as the scripted model allows (20
// deltas per event-loop turn, 500 per reply; an ended or stopped reply is followed at once by the
// next, in a fresh session), and every
// 100 ms a Stop goes to a random running session. Measured: Stop to REPLY_END(interrupted) delivered
// to the consumer, p50/p99/max per N and p99 as a ratio of N = 1, with the deltas/s delivered.
// Two paths: the hub API in one process (handle.interrupt(), the consumer is handle.replyStream), and
// HTTP (the server alone in a child process; SSE clients and the POST /sessions/:id/interrupt in this one).
// Each row is followed by the time to the Stop's own answer (hub promise / POST response): the
// difference is the backlog of deltas the client had still to read (a reply is not slowed by a
// slow reader; its SSE stream buffers up to limits.sseHighWaterBytes, then drops the reader).
// Sizes: STOP_NS=1,10,100,500 STOP_SECONDS=6 (per N and path) STOP_PATHS=hub,http; STOP_CPU_PROF=DIR
// writes the HTTP server's CPU profile there (node --cpu-prof). Prints figures, asserts nothing.
//   npm run bench:stop                          the full run (quiet machine: ~1 min)
//   STOP_NS=1,10 STOP_SECONDS=2 npm run bench:stop   a quick check that it works
import { fork, type ChildProcess } from 'node:child_process'
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http'
import { cpus } from 'node:os'
import { fileURLToPath } from 'node:url'
import { createHub, createServer, memoryStore, scriptedModel, type Hub, type OutputEvent, type ScriptStep } from '../lib/index.js'
import { listen } from '../lib/node.js'

const NS = (process.env.STOP_NS ?? '1,10,100,500').split(',').map(Number)
const SECONDS = Number(process.env.STOP_SECONDS ?? 6)
const PATHS = (process.env.STOP_PATHS ?? 'hub,http').split(',')
const STOP_EVERY_MS = 100
const WARM_UP_MS = 500

/**
 * A reply: the scripted model's fastest stream, 20 deltas and then a 0 ms pause (one timer turn),
 * 25 times (500 deltas), one turn shared by every call. Each reply runs in a fresh session (the
 * last one is deleted), so the memory held stays that of N replies however long the run: a memory
 * log keeps every event, and a heap that grows without bound stalls the process in GC.
 */
const GROUP: ScriptStep[] = [...Array.from({ length: 20 }, (): ScriptStep => ({ type: 'text', delta: 'token ' })), { type: 'delay', ms: 0 }]
const TURN: ScriptStep[] = Array.from({ length: 25 }, () => GROUP).flat()
const streamingModel = () => {
  const model = scriptedModel([TURN], { onExhausted: 'repeat-last' })
  // The script keeps every request it was sent (for specs); a bench session runs hundreds of replies.
  return { name: model.name, stream: (request: Parameters<typeof model.stream>[0], options: Parameters<typeof model.stream>[1]) => {
    model.requests.length = 0
    return model.stream(request, options)
  } }
}

const makeHub = (n: number) => createHub({ store: memoryStore(), agent: () => ({ name: 'bench', model: streamingModel() }), maxLive: n * 2 + 10 })

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN

/** One session's driver: it runs replies back to back; `stop()` resolves with the ms until this client saw REPLY_END(interrupted). */
interface Driver {
  running: boolean
  stopping: boolean
  stop(): Promise<number>
}

interface Figures {
  /** Stop to REPLY_END(interrupted) seen by the client (Infinity: not within 10 s). */
  latencies: number[]
  /** Stop to the Stop's own answer (the hub's promise, or the POST's response): the server's side, without the client's backlog of deltas. */
  answered: number[]
  deltas: number
  seconds: number
  missed: number
  /** Stops whose reply ended some other way first (it completed, or its stream was dropped at the SSE high-water mark: the client read too slowly). */
  otherEnds: number
  /** Replies that could not start and Stops that failed (the first is printed). */
  errors: string[]
}

/**
 * Runs N drivers for SECONDS and sends a Stop every 100 ms to a random running one (not already
 * stopping). `start(i, onDelta, onEnd)` begins a reply on session i and returns the Stop to send.
 */
const measure = async (n: number, start: (i: number, events: { delta(): void; end(reason: string): void }) => Promise<() => Promise<unknown>>): Promise<Figures> => {
  let deltas = 0
  const answered: number[] = []
  const errors: string[] = []
  let counting = false
  let closing = false
  const drivers: Driver[] = []
  const loops = Array.from({ length: n }, async (_, i) => {
    const driver: Driver = { running: false, stopping: false, stop: async () => NaN }
    drivers[i] = driver
    while (!closing) {
      let ended!: (reason: string) => void
      const end = new Promise<string>((resolve) => (ended = resolve))
      let sendStop: () => Promise<unknown>
      try {
        sendStop = await start(i, { delta: () => void (counting && deltas++), end: (reason) => ended(reason) })
      } catch (error) {
        errors.push(String(error))
        await new Promise((resolve) => setTimeout(resolve, 50))
        continue
      }
      driver.running = true
      driver.stop = async () => {
        driver.stopping = true
        const asked = performance.now()
        const sent = sendStop().then(() => void answered.push(performance.now() - asked), (error: unknown) => void errors.push(String(error)))
        const [, reason] = await Promise.all([sent, end])
        // A stream that ended otherwise (dropped at the SSE high-water mark, closed) is no Stop's effect.
        return reason === 'interrupted' ? performance.now() - asked : -1
      }
      await end
      driver.running = false
      driver.stopping = false
    }
  })
  await new Promise((resolve) => setTimeout(resolve, WARM_UP_MS))
  counting = true
  const started = performance.now()
  const latencies: Promise<number>[] = []
  let missed = 0
  while (performance.now() - started < SECONDS * 1000) {
    await new Promise((resolve) => setTimeout(resolve, STOP_EVERY_MS))
    const candidates = drivers.filter((d) => d?.running && !d.stopping)
    if (candidates.length === 0) {
      missed++
      continue
    }
    const driver = candidates[Math.floor(Math.random() * candidates.length)]
    latencies.push(Promise.race([driver.stop(), new Promise<number>((resolve) => setTimeout(() => resolve(Infinity), 10_000))]))
  }
  const seconds = (performance.now() - started) / 1000
  const all = await Promise.all(latencies)
  const measured = all.filter((l) => l >= 0).sort((a, b) => a - b)
  const otherEnds = all.length - measured.length
  counting = false
  closing = true
  await Promise.all(drivers.map((d) => (d?.running && !d.stopping ? d.stop() : undefined)))
  await Promise.race([Promise.all(loops), new Promise((resolve) => setTimeout(resolve, 5000))])
  return { latencies: measured, answered: answered.sort((a, b) => a - b), deltas, seconds, missed, otherEnds, errors }
}

/** The hub API: the consumer is handle.replyStream, the Stop handle.interrupt(). */
const viaHub = async (n: number): Promise<Figures> => {
  const hub = makeHub(n)
  try {
    const ids: (string | undefined)[] = []
    return await measure(n, async (i, events) => {
      if (ids[i]) await hub.delete(ids[i]!)
      ids[i] = (await hub.create()).session_id
      const handle = hub.session(ids[i]!)
      const stream = handle.replyStream('go')[Symbol.asyncIterator]()
      const first = await stream.next()
      void (async () => {
        for (let next = first; !next.done; next = await stream.next()) consume(next.value, events)
      })().catch(() => events.end('error'))
      return () => handle.interrupt()
    })
  } finally {
    await hub.close()
  }
}

const consume = (event: OutputEvent, events: { delta(): void; end(reason: string): void }) => {
  if (event.type === 'TEXT_BLOCK_DELTA') events.delta()
  else if (event.type === 'REPLY_END') events.end(event.finished_reason)
}

/** The server's own time per Stop over HTTP (x-handled-ms), per run. */
let handled: number[] = []

/** HTTP: a server in its own process; each session's SSE client and its Stops come from this one. */
const viaHttp = async (n: number): Promise<Figures> => {
  handled = []
  const child = fork(fileURLToPath(import.meta.url), ['--serve', String(n)], { execArgv: ['--import', 'tsx', ...(process.env.STOP_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.STOP_CPU_PROF}`] : [])], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  try {
    const url = await new Promise<string>((resolve, reject) => {
      child.once('message', (message) => resolve(String(message)))
      child.once('exit', (code) => reject(new Error(`the server exited with ${code}`)))
    })
    const agent = new HttpAgent({ keepAlive: true })
    const post = (path: string, body: unknown) => new Promise<IncomingMessage>((resolve, reject) => {
      const req = httpRequest(`${url}${path}`, { method: 'POST', agent, headers: { 'content-type': 'application/json' } }, resolve)
      req.on('error', reject)
      req.end(JSON.stringify(body))
    })
    const text = async (res: IncomingMessage) => {
      let body = ''
      for await (const chunk of res) body += chunk
      return body
    }
    const ids: string[] = []
    try {
      return await measure(n, async (i, events) => {
        if (ids[i]) await fetch(`${url}/sessions/${ids[i]}`, { method: 'DELETE' }).then((r) => r.arrayBuffer())
        ids[i] = (JSON.parse(await text(await post('/sessions', {}))) as { session_id: string }).session_id
        const response = await post(`/sessions/${ids[i]}/replies`, { input: 'go' })
        if (response.statusCode !== 200) throw new Error(`POST /replies answered ${response.statusCode}: ${await text(response)}`)
        readEvents(response, events)
        return async () => {
          // fetch's own pool: never a connection the SSE streams hold.
          const sentAt = Date.now()
          const answer = await fetch(`${url}/sessions/${ids[i]}/interrupt`, { method: 'POST' })
          const body = await answer.text()
          if (answer.status !== 200) throw new Error(`POST /interrupt answered ${answer.status}: ${body.slice(0, 200)}`)
          handled.push(Number(answer.headers.get('x-handled-ms')))
          const arrived = Number(answer.headers.get('x-arrived-at'))
          if (process.env.STOP_DEBUG) console.log(`Stop: sent to the handler ${arrived - sentAt} ms (wall clock), handler ${arrived - sentAt} ms, handler ${answer.headers.get('x-handled-ms')} ms, answer to client ${Date.now() - arrived} ms`)
        }
      })
    } finally {
      agent.destroy()
    }
  } finally {
    await stopChild(child)
  }
}

/**
 * The client's side of a reply's SSE stream, kept cheap so that the one client process measures
 * the server and not its own parsing: deltas are counted and REPLY_END found by their type's
 * bytes (the server's frames are `data: {...,"type":"TEXT_BLOCK_DELTA",...}`), no JSON parse.
 */
const readEvents = (response: IncomingMessage, events: { delta(): void; end(reason: string): void }) => {
  let carry = ''
  response.setEncoding('utf8')
  response.on('data', (chunk: string) => {
    const text = carry + chunk
    for (let at = text.indexOf('"type":"TEXT_BLOCK_DELTA"'); at !== -1; at = text.indexOf('"type":"TEXT_BLOCK_DELTA"', at + 1)) if (at + 25 > carry.length) events.delta()
    const end = text.indexOf('"type":"REPLY_END"')
    if (end !== -1) {
      const reason = /"finished_reason":"(\w+)"/.exec(text.slice(end))?.[1] ?? (/"finished_reason":"(\w+)"/.exec(text.slice(0, end))?.[1] ?? 'unknown')
      events.end(reason)
    }
    carry = text.slice(-40)
  })
  response.on('end', () => events.end('closed (dropped at the high-water mark)'))
  response.on('error', () => events.end('error'))
}

const stopChild = (child: ChildProcess) => new Promise<void>((resolve) => {
  if (child.exitCode !== null) return resolve()
  child.once('exit', () => resolve())
  child.kill('SIGTERM')
})

/** The child: serves a hub for N sessions on a free port, sends its URL, runs until killed. */
const serve = async (n: number) => {
  const hub: Hub = makeHub(n)
  const handler = createServer({ hub, limits: { openReplies: n * 2 + 10, eventStreams: n * 2 + 10 } })
  // The time the server spent on a Stop, from its request reaching the handler to the answer.
  const timed = Object.assign(async (request: Request) => {
    if (!request.url.endsWith('/interrupt')) return handler(request)
    const started = performance.now()
    const arrived = Date.now()
    const response = await handler(request)
    const headers = new Headers(response.headers)
    headers.set('x-handled-ms', (performance.now() - started).toFixed(3))
    headers.set('x-arrived-at', String(arrived))
    return new Response(response.body, { status: response.status, headers })
  }, { authenticated: false })
  const served = await listen(timed, { port: 0 })

  process.send!(served.url)
  process.once('SIGTERM', () => void served.close().then(() => hub.close()).finally(() => process.exit(0)))
}

const row = (path: string, n: number, f: Figures, base: number | undefined) => {
  const lost = f.latencies.filter((l) => l === Infinity).length
  const seen = f.latencies.filter((l) => l !== Infinity)
  const p99 = quantile(seen, 0.99)
  console.log(`  ${path.padEnd(5)} N=${String(n).padEnd(4)} Stops ${String(f.latencies.length).padStart(3)}  p50 ${quantile(seen, 0.5).toFixed(2).padStart(7)} ms  p99 ${p99.toFixed(2).padStart(7)} ms  max ${(seen.at(-1) ?? NaN).toFixed(2).padStart(7)} ms` +
    `  p99/p99(N=1) ${base ? (p99 / base).toFixed(2) : '   -'}x  ${Math.round(f.deltas / f.seconds).toLocaleString('en').padStart(8)} deltas/s` +
    `${lost ? `  ${lost} Stops not seen within 10 s` : ''}${f.missed ? `  ${f.missed} ticks found no running session` : ''}${f.otherEnds ? `  ${f.otherEnds} replies ended otherwise first (completed before the Stop, or their stream dropped at the SSE high-water mark)` : ''}`)
  if (f.errors.length) console.log(`  ${''.padEnd(12)} ${f.errors.length} errors, the first: ${f.errors[0].slice(0, 300)}`)
  console.log(`  ${''.padEnd(12)} the Stop's own answer (no delivery backlog): p50 ${quantile(f.answered, 0.5).toFixed(2)} ms  p99 ${quantile(f.answered, 0.99).toFixed(2)} ms  max ${(f.answered.at(-1) ?? NaN).toFixed(2)} ms`)
  if (path === 'http') {
    const own = [...handled].sort((a, b) => a - b)
    console.log(`  ${''.padEnd(12)} in the server's handler (request to answer): p50 ${quantile(own, 0.5).toFixed(2)} ms  p99 ${quantile(own, 0.99).toFixed(2)} ms  max ${(own.at(-1) ?? NaN).toFixed(2)} ms`)
  }
  return p99
}

if (process.argv[2] === '--serve') await serve(Number(process.argv[3]))
else {
  console.log(`agentlog Stop benchmark on Node ${process.version}, ${cpus().length} cores: N sessions streaming, a Stop every ${STOP_EVERY_MS} ms for ${SECONDS} s per N; Stop to REPLY_END(interrupted) at the client (goal: p99 < 10 ms, p99(N=500) <= 3x p99(N=1))`)
  for (const path of PATHS) {
    let base: number | undefined
    for (const n of NS) {
      const figures = path === 'hub' ? await viaHub(n) : await viaHttp(n)
      const p99 = row(path, n, figures, base)
      if (n === NS[0]) base = p99
    }
  }
}
