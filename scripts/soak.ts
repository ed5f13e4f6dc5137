// npm run soak: 10,000 replies with random interrupts (signal, break, unsubscribe, interrupt()),
// pauses answered or interrupted, failing model calls and tools that ignore their signal, in one
// process and on one agent. At checkpoints it measures the heap after GC, the active timers and the
// store's subscribers, and checks replay(log) = state; at the end it drops the agent and checks the
// heap falls back. Prints the bounds it measured; exits 1 when one is broken. Not run by CI:
//   node --expose-gc --import tsx scripts/soak.ts [--replies 10000] [--seed 1]
import { isDeepStrictEqual } from 'node:util'
import { z } from 'zod'
import { sleep } from '../lib/core/abort.js'
import {
  createAgent, defineTool, ExternalExecutionResultEvent, memoryLog, ModelError, replay, ToolResultBlock, UserConfirmResultEvent, UserInterruptEvent,
  UserMsg, type Agent, type AgentInput, type ChatModel, type ModelChunk, type Tool,
} from '../lib/index.js'

const gc = (globalThis as { gc?: () => void }).gc
if (!gc) throw new Error('run with node --expose-gc --import tsx scripts/soak.ts')
const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 ? Number(process.argv[i + 1]) : fallback
}
const REPLIES = arg('replies', 10_000)
const CHECKPOINTS = 10
let seed = arg('seed', 1) >>> 0
const random = () => ((seed = (seed * 1664525 + 1013904223) >>> 0) / 2 ** 32)
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]

/** A model that answers with 1-3 tool calls (arguments in fragments), or text, sometimes failing mid-stream. */
const model: ChatModel = {
  name: 'soak',
  async *stream(request, { signal }) {
    const reply = request.messages.at(-1)
    const rounds = reply?.role === 'assistant' ? reply.content.filter((b) => b.type === 'tool_result').length : 0
    if (random() < 0.3) await sleep(1, signal)
    if (random() < 0.02) throw new Error('soak model failure')
    if (request.tool_choice === 'none' || rounds >= 3 || random() < 0.35) {
      yield { type: 'text', delta: 'Done ' }
      yield { type: 'text', delta: `after ${rounds} results.` }
    } else {
      const n = 1 + Math.floor(random() * 3)
      for (let i = 0; i < n; i++) {
        const args = JSON.stringify({ x: `v${i}` })
        const id = `call-${Math.floor(random() * 1e9)}`
        const name = pick(TOOL_NAMES)
        yield { type: 'tool_call', id, name, delta: args.slice(0, 5) } satisfies ModelChunk
        if (random() < 0.3) await sleep(1, signal)
        yield { type: 'tool_call', id, name, delta: args.slice(5) }
      }
    }
    yield { type: 'usage', input_tokens: 10, output_tokens: 3 }
  },
}

const input = z.object({ x: z.string() })
const tools: Tool[] = [
  defineTool({ name: 'fast', description: 'fast', input, concurrencySafe: true, execute: ({ x }) => `fast ${x}` }),
  defineTool({ name: 'slow', description: 'honours its signal', input, execute: async ({ x }, { signal }) => (await sleep(2, signal), `slow ${x}`) }),
  defineTool({ name: 'stubborn', description: 'ignores its signal', input, concurrencySafe: true, execute: async ({ x }) => (await sleep(3), `late ${x}`) }),
  defineTool({ name: 'stream', description: 'streams', input, execute: async function* ({ x }, { signal }) { yield `a ${x}`; await sleep(1, signal); yield 'b' } }),
  defineTool({ name: 'ask', description: 'asks', input, permission: 'ask', execute: ({ x }) => `asked ${x}` }),
  defineTool({ name: 'external', description: 'runs outside', input, external: true }),
]
const TOOL_NAMES = tools.map((t) => t.name)

/** One reply, stopped after a random event by a random form (or not at all). */
const oneReply = async (agent: Agent, n: number) => {
  const form = pick(['none', 'none', 'signal', 'break', 'unsubscribe', 'interrupt'] as const)
  const at = 1 + Math.floor(random() * 25)
  const controller = new AbortController()
  const msg = UserMsg({ content: `message ${n}` })
  if (form === 'unsubscribe') {
    await new Promise<void>((resolve) => {
      let seen = 0
      const subscription = agent.reply$(msg).subscribe({ next: () => ++seen === at && queueMicrotask(() => (subscription.unsubscribe(), resolve())), complete: resolve })
    })
  } else {
    let seen = 0
    for await (const _ of agent.replyStream(msg, { signal: controller.signal })) {
      if (++seen !== at) continue
      if (form === 'break') break
      if (form === 'signal') controller.abort()
      if (form === 'interrupt') await agent.interrupt()
    }
  }
  // Answer pauses until the reply is over: confirm, deny, give the external result, or interrupt.
  const answer = (event: AgentInput) => agent.reply(event).catch((error: unknown) => {
    if (!(error instanceof ModelError)) throw error // a failing model call ends the reply as an error
  })
  for (let guard = 0; agent.state.status === 'paused' && guard < 20; guard++) {
    const { reply_id, waiting_for } = agent.state
    const asking = waiting_for.filter((c) => c.state === 'asking')
    const submitted = waiting_for.filter((c) => c.state === 'submitted')
    const choice = random()
    if (choice < 0.2) await answer(UserInterruptEvent({ reply_id: reply_id! }))
    else if (asking.length) await answer(UserConfirmResultEvent({ reply_id: reply_id!, confirm_results: asking.map((tool_call) => ({ confirmed: choice < 0.7, tool_call })) }))
    else await answer(ExternalExecutionResultEvent({ reply_id: reply_id!, execution_results: submitted.map((c) => ToolResultBlock({ id: c.id, name: c.name, output: 'ext' })) }))
  }
  if (agent.state.status !== 'idle') throw new Error(`reply ${n} left the agent ${agent.state.status}`)
}

interface Checkpoint { replies: number; heap: number; events: number; logBytes: number; timers: number; observers: number }

const observers = (agent: Agent): number =>
  [agent.events$, agent.state$].reduce((sum, o) => sum + ((o as unknown as { source?: { observers?: unknown[] } }).source?.observers?.length ?? 0), 0)
const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length
const settle = async () => {
  await sleep(10) // tools that ignored their signal finish their late work
  gc!()
  await sleep(0)
  gc!()
}
const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`

const main = async () => {
  // Warm up (compiled code, caches, lazy module state), so the baseline holds what any agent needs.
  const warm = createAgent({ name: 'Warm', model, tools })
  for (let n = 1; n <= 100; n++) await oneReply(warm, n)
  await warm.close()
  await settle()
  const baseline = { heap: process.memoryUsage().heapUsed, timers: timers() }
  let agent: Agent | null = createAgent({ name: 'Soak', model, tools, log: memoryLog() })
  const points: Checkpoint[] = []
  const started = Date.now()
  for (let n = 1; n <= REPLIES; n++) {
    await oneReply(agent, n)
    if (n % (REPLIES / CHECKPOINTS) !== 0) continue
    await settle()
    const heap = process.memoryUsage().heapUsed
    const active = timers()
    if (!isDeepStrictEqual(replay(agent.log), agent.state)) throw new Error(`replay(log) differs from the state after ${n} replies`)
    const logBytes = agent.log.reduce((sum, e) => sum + JSON.stringify(e).length, 0)
    points.push({ replies: n, heap, events: agent.log.length, logBytes, timers: active, observers: observers(agent) })
    const p = points.at(-1)!
    console.log(`${String(n).padStart(6)} replies: heap ${mb(p.heap)}, log ${p.events} events (${mb(logBytes)} JSON), timers ${p.timers}, store subscribers ${p.observers}, ${((Date.now() - started) / n).toFixed(2)} ms/reply`)
  }
  await agent.close()
  agent = null
  await settle()
  const residual = process.memoryUsage().heapUsed - baseline.heap

  const first = points[0]
  const last = points.at(-1)!
  const perReply = (last.heap - first.heap) / (last.replies - first.replies)
  const logPerReply = (last.logBytes - first.logBytes) / (last.replies - first.replies)
  const half = Math.floor(points.length / 2)
  const early = (points[half].heap - first.heap) / (points[half].replies - first.replies)
  const late = (last.heap - points[half].heap) / (last.replies - points[half].replies)
  const failures = [
    points.some((p) => p.timers > baseline.timers) && `timers left running: ${points.map((p) => p.timers).join(', ')} (baseline ${baseline.timers})`,
    new Set(points.map((p) => p.observers)).size > 1 && `store subscribers grew: ${points.map((p) => p.observers).join(', ')}`,
    perReply > 12 * logPerReply && `heap grows ${perReply.toFixed(0)} B/reply, over 12x the log's ${logPerReply.toFixed(0)} B/reply of JSON`,
    late > 2 * Math.max(early, logPerReply) && `heap growth accelerates: ${early.toFixed(0)} then ${late.toFixed(0)} B/reply`,
    residual > 4 * 2 ** 20 && `${mb(residual)} stay on the heap after the agent is dropped`,
  ].filter(Boolean)
  console.log(`\nsoak: ${REPLIES} replies in ${((Date.now() - started) / 1000).toFixed(1)} s`)
  console.log(`  heap per reply while the agent holds its log: ${perReply.toFixed(0)} B (${(perReply / logPerReply).toFixed(1)}x the log's ${logPerReply.toFixed(0)} B of JSON; first half ${early.toFixed(0)} B, second half ${late.toFixed(0)} B)`)
  console.log(`  after dropping the agent: ${mb(residual)} above the baseline; timers ${timers()} (baseline ${baseline.timers}); store subscribers constant at ${first.observers}`)
  console.log(failures.length ? `  FAILED:\n  - ${failures.join('\n  - ')}` : '  bounds held: no timer, subscriber or heap left behind per reply')
  process.exit(failures.length ? 1 : 0)
}

await main()
