// Generators of misbehaving parts (issue 9): models that send bad chunk shapes, interleave and
// reuse tool call ids and throw odd values; tools whose schemas and permission functions throw or
// answer nonsense and whose bodies return or throw odd values; and log stores whose `append`
// throws at a random point. Each is built from a plain, printable plan, so a failure shrinks.
import fc from 'fast-check'
import { z } from 'zod'
import { defineTool, memoryLog, type ChatModel, type LogStore, type Tool } from '../../../lib/index.js'

/** Values no `String()` can print, and other odd things user code throws. */
export const oddThrowArb = fc.constantFrom('error', 'string', 'null-proto', 'undefined', 'number', 'proxy', 'getter')
export const makeThrown = (kind: string): unknown => {
  switch (kind) {
    case 'error': return new Error('boom')
    case 'string': return 'boom'
    case 'null-proto': return Object.create(null)
    case 'undefined': return undefined
    case 'number': return 42
    case 'proxy': return new Proxy({}, { get: () => { throw new Error('trap') }, getPrototypeOf: () => { throw new Error('trap') } })
    default: return Object.defineProperty(new Error(), 'message', { get: () => { throw new Error('getter') } })
  }
}

const TOOL_NAMES = ['t0', 't1', 't2'] as const
const idArb = fc.constantFrom('a', 'b', 'call_0', 'call_1', '', undefined)
const nameArb = fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...TOOL_NAMES) }, { weight: 1, arbitrary: fc.constantFrom('', 'nope', undefined) })
const fragmentArb = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('{', '"x":', '"v"', '}', '{"x":"v"}', '{}', '', '[1,2]', '{"x":') },
  { weight: 1, arbitrary: fc.constantFrom(7, null, undefined) },
)

/** One chunk a model may send, good or bad. */
export const chunkArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 8, arbitrary: fc.string({ maxLength: 6 }).map((delta) => ({ type: 'text', delta })) },
  { weight: 2, arbitrary: fc.string({ maxLength: 4 }).map((delta) => ({ type: 'thinking', delta })) },
  { weight: 8, arbitrary: fc.record({ type: fc.constant('tool_call'), id: idArb, name: nameArb, delta: fragmentArb }) },
  { weight: 2, arbitrary: fc.record({ type: fc.constant('usage'), input_tokens: fc.nat(50), output_tokens: fc.nat(50) }) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(
    { type: 'text', delta: 3 }, { type: 'usage', input_tokens: '0', output_tokens: '12' }, { type: 'usage', input_tokens: -1, output_tokens: Number.NaN },
    { type: 'mystery' }, null, 'text', 17, { type: 'thinking_signature', signature: 5 },
  ) },
)

export interface ModelTurnPlan { chunks: unknown[]; end: 'ok' | 'throw'; thrown: string }
export const modelTurnArb: fc.Arbitrary<ModelTurnPlan> = fc.record({
  chunks: fc.array(chunkArb, { maxLength: 8 }),
  end: fc.constantFrom<'ok' | 'throw'>('ok', 'ok', 'ok', 'throw'),
  thrown: oddThrowArb,
})

/** A model playing `turns` (then plain text answers); the same ids come back turn after turn. */
export const misbehavingModel = (turns: ModelTurnPlan[]): ChatModel => {
  let call = 0
  return {
    name: 'misbehaving',
    async *stream(_request, { signal }) {
      const turn = turns[call++] ?? { chunks: [{ type: 'text', delta: 'done' }], end: 'ok', thrown: 'error' }
      for (const chunk of turn.chunks) {
        await Promise.resolve()
        if (signal.aborted) throw signal.reason
        yield chunk as never
      }
      if (turn.end === 'throw') throw makeThrown(turn.thrown)
    },
  }
}

export interface ToolPlan {
  schema: 'plain' | 'throwing-transform' | 'throwing-refine'
  permission: 'allow' | 'deny' | 'fn-allow' | 'fn-throws' | 'fn-odd'
  body: 'string' | 'object' | 'odd-return' | 'throws' | 'stream' | 'odd-stream' | 'date-metadata'
  thrown: string
}
export const toolPlanArb: fc.Arbitrary<ToolPlan> = fc.record({
  schema: fc.constantFrom<ToolPlan['schema']>('plain', 'plain', 'throwing-transform', 'throwing-refine'),
  permission: fc.constantFrom<ToolPlan['permission']>('allow', 'allow', 'deny', 'fn-allow', 'fn-throws', 'fn-odd'),
  body: fc.constantFrom<ToolPlan['body']>('string', 'object', 'odd-return', 'throws', 'stream', 'odd-stream', 'date-metadata'),
  thrown: oddThrowArb,
})

export const buildMisbehavingTool = (plan: ToolPlan, index: number): Tool => {
  const thrower = () => { throw makeThrown(plan.thrown) }
  const base = z.object({ x: z.string() }).partial().loose()
  const input = plan.schema === 'plain' ? base
    : plan.schema === 'throwing-transform' ? base.transform((v) => (v.x === 'v' ? thrower() : v))
      : base.refine((v) => (v.x === undefined ? thrower() : true))
  const permission = plan.permission === 'fn-allow' ? () => 'allow' as const
    : plan.permission === 'fn-throws' ? thrower
      : plan.permission === 'fn-odd' ? () => 'Allow'
        : plan.permission
  const execute = (): unknown => {
    switch (plan.body) {
      case 'string': return 'ok'
      case 'object': return { output: 'ok', metadata: { n: 1 } }
      case 'odd-return': return [undefined, null, 5, { output: 1 }, { output: 'x', state: 'weird' }][plan.thrown.length % 5]
      case 'throws': return Promise.reject(makeThrown(plan.thrown))
      case 'stream': return (async function* () { yield 'a'; yield 'b' })()
      case 'odd-stream': return (async function* () { yield 'a'; yield 5 as unknown as string })()
      default: return { output: 'ok', metadata: { at: new Date(0) } }
    }
  }
  return defineTool({ name: TOOL_NAMES[index], description: `Tool ${index}`, input: input as z.ZodType, permission: permission as never, execute: execute as never })
}

/** A memory log whose `append` throws `thrown` from call number `failAt` on (never when null). */
export const failingStore = (failAt: number | null, thrown: string): LogStore & { failed: boolean } => {
  const inner = memoryLog()
  let calls = 0
  const store = {
    ...inner,
    failed: false,
    get events() { return inner.events },
    append(batch: Parameters<LogStore['append']>[0], options: Parameters<LogStore['append']>[1]) {
      if (failAt !== null && ++calls >= failAt) {
        store.failed = true
        throw makeThrown(thrown)
      }
      inner.append(batch, options)
    },
  }
  return store
}
