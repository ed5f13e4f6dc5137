// `npm run bench:a2a`: (a) Stop across the A2A boundary: a lead whose a2aAgent call streams from an
// agentlog server (createServer({ a2a: true }) over real HTTP on 127.0.0.1, in this process) is
// stopped; the time until the remote session's log holds REPLY_END(interrupted), as the parent's
// owner observes it, p50 / p99, next to the same lead with a local sub-agent (agentTool) stopped the
// same way (until the child's REPLY_END); (b) the cost per streamed text delta of the remote
// sub-agent against the local one, end to end (wall and CPU). Prints figures; asserts nothing.
// Sizes: A2A_BENCH_RUNS (Stops per kind, default 30), A2A_BENCH_DELTAS (deltas per reply, default 2000).
import { filter, firstValueFrom } from 'rxjs'
import { sleep } from '../lib/core/abort.js'
import { agentTool, callTool, createAgent, createHub, createServer, memoryStore, say, type Agent, type ChatModel, type Hub, type Tool } from '../lib/index.js'
import { listen } from '../lib/node.js'
import { a2aAgent, remoteContextOf } from '../lib/a2a.js'
import { cpuNow, fastModel, line, now, ratio, textDeltas, us, type Figure } from './helpers.js'

const RUNS = Number(process.env.A2A_BENCH_RUNS ?? 30)
const DELTAS = Number(process.env.A2A_BENCH_DELTAS ?? 2000)

/** Streams text until stopped, one delta per millisecond. */
const endless: ChatModel = {
  name: 'endless',
  async *stream(_request, { signal }) {
    for (;;) {
      await sleep(1, signal)
      yield { type: 'text', delta: 'word ' }
    }
  },
}

const leadWith = (tool: Tool) => createAgent({ name: 'lead', tools: [tool], model: fastModel([[...callTool('c1', tool.name, { task: 't' })], say('ok')]) })

const until = async (condition: () => boolean) => {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 1))
}

const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]

/** One Stop: run the lead until its sub-agent streams, Stop it, and time until `ended` resolves. */
const stopOnce = async (lead: Agent, ended: (lead: Agent) => Promise<unknown>) => {
  const run = lead.reply('go')
  await until(() => lead.children()[0]?.log.some((e) => e.type === 'TEXT_BLOCK_DELTA') ?? false)
  const stoppedAt = now()
  const end = ended(lead)
  await lead.interrupt()
  await end
  const took = now() - stoppedAt
  await run
  return took
}

const remoteEnd = (hub: Hub) => (lead: Agent) => {
  const session = remoteContextOf(lead.children()[0].session_id)
  return firstValueFrom(hub.session(session).follow().pipe(filter((e) => e.type === 'REPLY_END' && e.finished_reason === 'interrupted')))
}
const localEnd = (lead: Agent) => firstValueFrom(lead.children()[0].events$.pipe(filter((e) => e.type === 'REPLY_END')))

/** Wall and CPU µs per delta of one lead reply whose sub-agent streams DELTAS deltas. */
const perDelta = async (tool: () => Promise<Tool>, runs: number): Promise<Figure> => {
  let wall = 0
  let cpu = 0
  for (let i = 0; i < runs; i++) {
    const lead = leadWith(await tool()) // the card is read before the timing starts
    const w = now()
    const c = cpuNow()
    await lead.reply('go')
    wall += now() - w
    cpu += cpuNow() - c
  }
  return { wall: (wall * 1000) / (runs * DELTAS), cpu: (cpu * 1000) / (runs * DELTAS) }
}

const serveRemote = async (model: () => ChatModel) => {
  const hub = createHub({ store: memoryStore(), agent: () => ({ name: 'remote', model: model() }) })
  const server = await listen(createServer({ hub, a2a: true }), { port: 0 })
  return { hub, url: server.url, close: async () => (await server.close(), await hub.close()) }
}

const main = async () => {
  console.log(`bench:a2a — ${RUNS} Stops per kind, ${DELTAS} deltas per reply (A2A_BENCH_RUNS, A2A_BENCH_DELTAS)`)
  const streaming = await serveRemote(() => endless)
  try {
    const remoteTool = await a2aAgent({ url: streaming.url, name: 'remote' })
    const localTool = agentTool({ name: 'local', description: 'Streams', agent: { name: 'local', model: endless } })
    const remote: number[] = []
    const local: number[] = []
    for (let i = 0; i < RUNS; i++) {
      remote.push(await stopOnce(leadWith(remoteTool), remoteEnd(streaming.hub)))
      local.push(await stopOnce(leadWith(localTool), localEnd))
    }
    const ms = (xs: number[]) => `p50 ${percentile(xs, 0.5).toFixed(2)} ms, p99 ${percentile(xs, 0.99).toFixed(2)} ms`
    line('Stop → remote REPLY_END(interrupted), over A2A', ms(remote))
    line('Stop → child REPLY_END(interrupted), local sub-agent', ms(local))
  } finally {
    await streaming.close()
  }
  const burst = await serveRemote(() => fastModel([textDeltas(DELTAS)]))
  try {
    const runs = Math.max(1, Math.round(RUNS / 6))
    const local = await perDelta(async () => agentTool({ name: 'local', description: 'Streams', agent: { name: 'local', model: fastModel([textDeltas(DELTAS)]) } }), runs)
    const remote = await perDelta(() => a2aAgent({ url: burst.url, name: 'remote' }), runs)
    line('per delta, local sub-agent (wall / CPU)', us(local))
    line('per delta, remote sub-agent over A2A (wall / CPU)', us(remote))
    line('remote / local (wall / CPU)', ratio(remote, local))
  } finally {
    await burst.close()
  }
}

await main()
