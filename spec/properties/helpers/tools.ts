// Generated tools and the journal of their bodies. A tool plan says how a tool behaves (fast or
// slow, concurrency-safe or not, returns, throws, streams, answers an error object, asks, is denied
// or runs externally, honours or ignores its AbortSignal); the journal records, for every body
// that starts, the agent's state at that moment, when its signal fired and what it did afterwards.
import fc from 'fast-check'
import { z } from 'zod'
import { abortError, sleep } from '../../../lib/core/abort.js'
import { defineTool, type Agent, type Tool, type ToolOutput } from '../../../lib/index.js'

export type Body = 'return' | 'throw' | 'stream' | 'error-object' | 'blocks'

export interface ToolPlan {
  name: string
  external: boolean
  /** `odd`: a permission function, asking when the input's x has an odd length. */
  permission: 'allow' | 'ask' | 'deny' | 'odd'
  safe: boolean
  body: Body
  delayMs: number
  chunks: number
  honoursSignal: boolean
}

export const toolPlanArb = (name: string): fc.Arbitrary<ToolPlan> =>
  fc.record({
    name: fc.constant(name),
    external: fc.constantFrom(false, false, false, true),
    permission: fc.constantFrom<ToolPlan['permission']>('allow', 'ask', 'allow', 'allow', 'ask', 'deny', 'odd'),
    safe: fc.boolean(),
    body: fc.constantFrom<Body>('return', 'stream', 'throw', 'error-object', 'blocks'),
    delayMs: fc.integer({ min: 0, max: 3 }),
    chunks: fc.integer({ min: 1, max: 3 }),
    honoursSignal: fc.boolean(),
  })

export const describeTool = (p: ToolPlan): string =>
  `${p.name}: ${p.external ? 'external' : `${p.body} after ${p.delayMs} ms${p.body === 'stream' ? ` x${p.chunks}` : ''}, ${p.honoursSignal ? 'honours' : 'ignores'} its signal`}` +
  `${p.safe ? ', concurrency-safe' : ''}${p.permission !== 'allow' ? `, permission ${p.permission}` : ''}`

/** One execution of a tool body, as the journal saw it. `*Seq` are log lengths at that moment. */
export interface BodyRecord {
  tool: string
  call_id: string
  agent: Agent
  reply_id: string | null
  honours: boolean
  startSeq: number
  abortSeq: number | null
  settleSeq: number | null
  /** Output the body produced after its signal fired (only a tool that ignores it does that). */
  lateOutput: number
  settled: Promise<void>
}

export class Journal {
  readonly bodies: BodyRecord[] = []
  readonly problems: string[] = []
  /** The agent whose tools these are (a restart replaces it). */
  agent!: Agent

  /** Records a body's start and checks it against the state: no body starts outside a running, unclosed reply. */
  start(tool: string, call_id: string, honours: boolean): BodyRecord {
    const agent = this.agent
    const state = agent.state
    const call = state.reply_msg?.content.find((b) => b.type === 'tool_call' && b.id === call_id)
    const result = state.reply_msg?.content.find((b) => b.type === 'tool_result' && b.id === call_id)
    const where = `tool ${tool} (${call_id}) started`
    if (state.status !== 'running' || state.loop?.closing) this.problems.push(`${where} while the reply was ${state.status}${state.loop?.closing ? ' and closing' : ''}`)
    if (!call || call.type !== 'tool_call' || call.state !== 'allowed') this.problems.push(`${where} but its call is ${call && call.type === 'tool_call' ? call.state : 'not in the reply'}`)
    if (!result || result.type !== 'tool_result' || result.state !== 'running') this.problems.push(`${where} without a running result (TOOL_RESULT_START)`)
    if (this.bodies.some((b) => b.call_id === call_id && b.agent === agent)) this.problems.push(`${where} a second time`)
    const record: BodyRecord = {
      tool, call_id, agent, reply_id: state.reply_id, honours, startSeq: agent.log.length,
      abortSeq: null, settleSeq: null, lateOutput: 0, settled: Promise.resolve(),
    }
    this.bodies.push(record)
    return record
  }
}

const Input = z.object({ x: z.string() })

/** The tool a plan describes, writing to `journal`. */
export const buildTool = (plan: ToolPlan, journal: Journal): Tool => {
  const permission = plan.permission === 'odd' ? ({ x }: { x: string }) => (x.length % 2 ? 'ask' as const : 'allow' as const) : plan.permission
  const base = { name: plan.name, description: `Generated tool ${plan.name}`, input: Input, concurrencySafe: plan.safe, permission }
  if (plan.external) return defineTool({ ...base, external: true })
  return defineTool({
    ...base,
    execute: ({ x }, { signal, tool_call_id }): ToolOutput | Promise<ToolOutput> => {
      const record = journal.start(plan.name, tool_call_id, plan.honoursSignal)
      signal.addEventListener('abort', () => (record.abortSeq = record.agent.log.length), { once: true })
      // Honouring the signal: the wait rejects at once when it fires. Ignoring it: the work goes on.
      const wait = async () => {
        await sleep(plan.delayMs, plan.honoursSignal ? signal : undefined)
        if (signal.aborted && plan.honoursSignal) throw abortError(signal)
        if (signal.aborted) record.lateOutput++
      }
      let settle!: () => void
      record.settled = new Promise((resolve) => (settle = () => {
        record.settleSeq = record.agent.log.length
        resolve()
      }))
      if (plan.body === 'stream') {
        return (async function* () {
          try {
            for (let i = 0; i < plan.chunks; i++) {
              await wait()
              yield `${x}#${i};`
            }
          } finally {
            settle()
          }
        })()
      }
      return (async (): Promise<ToolOutput> => {
        try {
          await wait()
          switch (plan.body) {
            case 'throw':
              throw new Error(`${plan.name} failed on ${x}`)
            case 'error-object':
              return { output: `${plan.name} cannot do ${x}`, state: 'error', metadata: { code: 7 } }
            case 'blocks':
              return { output: [
                { type: 'text', id: `${tool_call_id}-out`, text: `${plan.name}:${x}`, created_at: 't', finished_at: 't' },
                { type: 'data', id: `${tool_call_id}-img`, source: x.length % 2 ? { type: 'url', url: `https://example.com/${x.length}.png`, media_type: 'image/png' } : { type: 'base64', data: 'aGk=', media_type: 'image/png' }, created_at: 't', finished_at: 't' },
              ], metadata: { blocks: 2 } }
            default:
              return `${plan.name}:${x}`
          }
        } finally {
          settle()
        }
      })()
    },
  })
}
