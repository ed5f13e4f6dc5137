// Damaged input for the bad-input properties: a fixed scenario whose first message parks on an
// asking call and an external one, the valid inputs for the agent's current status, and random
// damage to them (a field removed, replaced by an arbitrary value, or an extra field added).
import fc from 'fast-check'
import {
  ExternalExecutionResultEvent, ToolResultBlock, UserConfirmResultEvent, UserInterruptEvent, UserMsg, type AgentEvent, type Msg,
} from '../../../lib/index.js'
import { drive } from './drive.js'
import type { Scenario } from './script.js'
import type { ToolPlan } from './tools.js'
import { createWorld, drain, type World } from './world.js'

const plan = (name: string, over: Partial<ToolPlan>): ToolPlan =>
  ({ name, external: false, permission: 'allow', safe: true, body: 'return', delayMs: 1, chunks: 2, honoursSignal: true, ...over })

export const fixedScenario: Scenario = {
  tools: [plan('t0', { permission: 'ask' }), plan('t1', { external: true }), plan('t2', {}), plan('t3', { body: 'stream' })],
  turns: [{ thinking: null, text: { text: 'Two calls.', cuts: [3] }, calls: [{ tool: 0, args: 'valid', x: 'a', cuts: [2] }, { tool: 1, args: 'valid', x: 'b', cuts: [] }], usage: [{ at: 9, input: 10, output: 3 }], delays: [], fail: null }],
  maxIters: 4,
  compaction: null,
}

/** A world on the fixed scenario: fresh, idle after an interrupted park, or parked on two calls. */
export const parkedWorld = async (status: 'fresh' | 'idle' | 'paused'): Promise<World> => {
  const world = createWorld(fixedScenario)
  if (status === 'fresh') return world
  await drive(world, UserMsg({ content: 'go' }), { via: 'stream', form: 'none', at: 0 })
  if (status === 'idle') await world.agent.interrupt()
  return world
}

/** The inputs the agent accepts now (a message only when idle; answers only while parked). */
export const validInputs = (world: World): (Msg | AgentEvent)[] => {
  const { status, reply_id, waiting_for } = world.agent.state
  const inputs: (Msg | AgentEvent)[] = [UserMsg({ content: 'hello' })]
  if (status !== 'paused') return reply_id ? [...inputs, UserInterruptEvent({ reply_id })] : inputs
  const asking = waiting_for.filter((c) => c.state === 'asking')
  const submitted = waiting_for.filter((c) => c.state === 'submitted')
  return [
    ...inputs, UserInterruptEvent({ reply_id: reply_id! }),
    UserConfirmResultEvent({ reply_id: reply_id!, confirm_results: asking.map((tool_call) => ({ confirmed: true, tool_call, rules: [{ tool_name: tool_call.name, rule_content: null, behavior: 'allow', source: 'user' }] })) }),
    ExternalExecutionResultEvent({ reply_id: reply_id!, execution_results: submitted.map((c) => ToolResultBlock({ id: c.id, name: c.name, output: 'done' })) }),
  ]
}

type Op = { kind: 'delete' } | { kind: 'set'; value: unknown } | { kind: 'add'; key: string; value: unknown }
interface Mutation { at: number; op: Op }

const paths = (value: unknown, prefix: (string | number)[] = []): (string | number)[][] => {
  if (value === null || typeof value !== 'object') return []
  return Object.keys(value).flatMap((k) => {
    const key = Array.isArray(value) ? Number(k) : k
    return [[...prefix, key], ...paths((value as Record<string, unknown>)[k], [...prefix, key])]
  })
}

const mutate = (input: unknown, { at, op }: Mutation): unknown => {
  const copy = structuredClone(input) as Record<string, unknown>
  if (copy === null || typeof copy !== 'object') return op.kind === 'set' ? op.value : copy
  const all = [[], ...paths(copy)]
  const path = all[at % all.length]
  if (path.length === 0) return op.kind === 'add' ? Object.assign(copy, { [op.key]: op.value }) : op.kind === 'set' ? op.value : copy
  const parent = path.slice(0, -1).reduce<any>((node, key) => node[key], copy)
  const key = path[path.length - 1]
  if (op.kind === 'delete') Array.isArray(parent) ? parent.splice(Number(key), 1) : delete parent[key]
  else if (op.kind === 'set') parent[key] = op.value
  else if (parent[key] !== null && typeof parent[key] === 'object' && !Array.isArray(parent[key])) parent[key][op.key] = op.value
  else parent[op.key] = op.value
  return copy
}

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.constant({ kind: 'delete' as const }),
  fc.record({ kind: fc.constant('set' as const), value: fc.oneof(fc.jsonValue(), fc.constantFrom(undefined, '', -1, 1.5, 'USER_INTERRUPT', 'user', 'assistant')) }),
  fc.record({ kind: fc.constant('add' as const), key: fc.constantFrom('extra', 'type', 'role', 'reply_id', 'seq', '__proto__'), value: fc.jsonValue() }),
)

export interface Damage { pick: number; mutations: Mutation[]; apply: (input: unknown) => unknown }

export const damagedInputArb: fc.Arbitrary<Damage> = fc
  .record({ pick: fc.nat(10), mutations: fc.array(fc.record({ at: fc.nat(200), op: opArb }), { minLength: 1, maxLength: 2 }) })
  .map(({ pick, mutations }) => ({
    pick, mutations,
    apply: (input: unknown) => mutations.reduce(mutate, input),
    [fc.toStringMethod]: () => `valid input #${pick} damaged by ${fc.stringify(mutations)}`,
  }))

/** Waits until an accepted input's reply is over or parked, and every tool body has settled. */
export const settle = async (world: World): Promise<void> => {
  const started = Date.now()
  while (world.agent.state.status === 'running') {
    if (Date.now() - started > 4000) throw new Error('an accepted input left the reply running')
    await new Promise((resolve) => setTimeout(resolve, 2))
  }
  await drain(world)
}

/** A message without any text that is not blank (see KNOWN_GAPS.blankText). */
export const isBlankMessage = (input: unknown): boolean => {
  const content = (input as { role?: unknown; content?: unknown } | null)?.content
  if (typeof input !== 'object' || input === null || !('role' in input) || !Array.isArray(content)) return false
  return !Array.prototype.some.call(content, (b) => (b as { type?: unknown } | null)?.type === 'text' && String((b as { text?: unknown }).text).trim() !== '')
}
