// Generated model scripts: turns that mix thinking (sometimes signed), text and zero to four tool
// calls whose JSON arguments (valid, failing the schema, cut short, or empty) are split into random
// fragments, with usage reports, small delays and sometimes a failure mid-stream. A scenario is
// four tool plans, a few turns (then a text answer, repeated) and maxIters; it prints as a script.
import fc from 'fast-check'
import { ModelError, type ErrorType, type ScriptStep } from '../../../lib/index.js'
import { describeTool, toolPlanArb, type ToolPlan } from './tools.js'

export interface Piece { text: string; cuts: number[] }
export interface CallPlan { tool: number; args: 'valid' | 'schema' | 'broken' | 'empty'; x: string; cuts: number[] }
export interface TurnPlan {
  thinking: (Piece & { signed: boolean }) | null
  text: Piece | null
  calls: CallPlan[]
  usage: { at: number; input: number; output: number }[]
  delays: { at: number; ms: number }[]
  fail: { at: number; type: ErrorType | 'plain' } | null
}
/** Context compaction with a summarizer that waits `delayMs` (so interrupts can land in it), or none. */
export interface CompactionPlan { maxContextTokens: number; keepRecent: number; delayMs: number }
export interface Scenario { tools: ToolPlan[]; turns: TurnPlan[]; maxIters: number; compaction: CompactionPlan | null }

export const TOOL_NAMES = ['t0', 't1', 't2', 't3']
const UNKNOWN_TOOL = 4

const cutsArb = fc.array(fc.integer({ min: 1, max: 12 }), { maxLength: 3 })
const pieceArb = fc.record({ text: fc.string({ minLength: 1, maxLength: 10 }), cuts: cutsArb })

const callArb: fc.Arbitrary<CallPlan> = fc.record({
  tool: fc.oneof({ weight: 9, arbitrary: fc.integer({ min: 0, max: 3 }) }, { weight: 1, arbitrary: fc.constant(UNKNOWN_TOOL) }),
  args: fc.oneof({ weight: 8, arbitrary: fc.constant('valid' as const) }, { weight: 2, arbitrary: fc.constantFrom('schema' as const, 'broken' as const, 'empty' as const) }),
  x: fc.string({ maxLength: 6 }),
  cuts: cutsArb,
})

export const turnArb: fc.Arbitrary<TurnPlan> = fc.record({
  thinking: fc.option(fc.record({ text: pieceArb.map((p) => p.text), cuts: cutsArb, signed: fc.boolean() }), { freq: 3 }),
  text: fc.option(pieceArb, { freq: 4, nil: null }),
  calls: fc.oneof({ weight: 2, arbitrary: fc.constant([]) }, { weight: 3, arbitrary: fc.array(callArb, { minLength: 1, maxLength: 4 }) }),
  usage: fc.array(fc.record({ at: fc.nat(30), input: fc.integer({ min: 1, max: 50 }), output: fc.integer({ min: 1, max: 20 }) }), { maxLength: 2 }),
  delays: fc.array(fc.record({ at: fc.nat(30), ms: fc.integer({ min: 0, max: 3 }) }), { maxLength: 3 }),
  fail: fc.oneof(
    { weight: 9, arbitrary: fc.constant(null) },
    { weight: 1, arbitrary: fc.record({ at: fc.nat(30), type: fc.constantFrom<ErrorType | 'plain'>('plain', 'rate_limit', 'upstream', 'connection') }) },
  ),
}) as fc.Arbitrary<TurnPlan>

const split = ({ text, cuts }: Piece): string[] => {
  const points = [...new Set(cuts.filter((c) => c < text.length))].sort((a, b) => a - b)
  return [0, ...points].map((start, i) => text.slice(start, points[i] ?? text.length)).filter((s) => s !== '')
}

const argsText = (call: CallPlan): string => {
  switch (call.args) {
    case 'valid': return JSON.stringify({ x: call.x })
    case 'schema': return JSON.stringify({ y: call.x.length })
    case 'broken': return JSON.stringify({ x: call.x }).slice(0, -2)
    case 'empty': return ''
  }
}

export const callId = (turn: number, index: number) => `c${turn}_${index}`
const toolName = (index: number) => TOOL_NAMES[index] ?? 'nope'

/** The scripted turn a plan describes; `turn` numbers its call ids (unique in the session). */
export const buildTurn = (plan: TurnPlan, turn: number): ScriptStep[] => {
  const steps: ScriptStep[] = []
  if (plan.thinking) {
    for (const delta of split(plan.thinking)) steps.push({ type: 'thinking', delta })
    if (plan.thinking.signed) steps.push({ type: 'thinking_signature', signature: `sig-${turn}` })
  }
  if (plan.text) for (const delta of split(plan.text)) steps.push({ type: 'text', delta })
  plan.calls.forEach((call, i) => {
    const fragments = split({ text: argsText(call), cuts: call.cuts })
    for (const delta of fragments.length ? fragments : ['']) steps.push({ type: 'tool_call', id: callId(turn, i), name: toolName(call.tool), delta })
  })
  // Usage chunks carry the totals so far, as providers send them.
  let input = 0
  let output = 0
  for (const u of [...plan.usage].sort((a, b) => a.at - b.at)) {
    input += u.input
    output += u.output
    steps.splice(u.at % (steps.length + 1), 0, { type: 'usage', input_tokens: input, output_tokens: output })
  }
  for (const d of plan.delays) steps.splice(d.at % (steps.length + 1), 0, { type: 'delay', ms: d.ms })
  if (plan.fail) {
    const error = plan.fail.type === 'plain' ? new Error(`model broke in turn ${turn}`) : new ModelError({ type: plan.fail.type, message: `${plan.fail.type} in turn ${turn}` })
    steps.splice(plan.fail.at % (steps.length + 1), 0, { type: 'fail', error })
  }
  return steps
}

/** The answer the model gives once the generated turns are used up (repeated as often as needed). */
export const FINAL_TURN: ScriptStep[] = [{ type: 'text', delta: 'All done.' }, { type: 'usage', input_tokens: 5, output_tokens: 2 }]

export const describeTurn = (plan: TurnPlan, turn: number): string => {
  const parts: string[] = []
  if (plan.thinking) parts.push(`think ${JSON.stringify(split(plan.thinking).join('|'))}${plan.thinking.signed ? ' (signed)' : ''}`)
  if (plan.text) parts.push(`say ${JSON.stringify(split(plan.text).join('|'))}`)
  plan.calls.forEach((c, i) => parts.push(`call ${callId(turn, i)} ${toolName(c.tool)} ${JSON.stringify(split({ text: argsText(c), cuts: c.cuts }).join('|'))}`))
  for (const u of plan.usage) parts.push(`usage +(${u.input},${u.output})@${u.at}`)
  for (const d of plan.delays) parts.push(`delay ${d.ms}ms@${d.at}`)
  if (plan.fail) parts.push(`FAIL ${plan.fail.type}@${plan.fail.at}`)
  return parts.join(', ') || '(nothing)'
}

export const describeScenario = (s: Scenario): string =>
  [`maxIters ${s.maxIters}${s.compaction ? `; compaction over ${s.compaction.maxContextTokens} tokens, keep ${s.compaction.keepRecent}, summarizer delay ${s.compaction.delayMs}ms` : ''}; tools:`, ...s.tools.map((t) => `  ${describeTool(t)}`), 'model turns:',
    ...s.turns.map((t, i) => `  ${i + 1}. ${describeTurn(t, i + 1)}`), `  then "All done." forever`].join('\n')

export const scenarioArb: fc.Arbitrary<Scenario> = fc.record({
  tools: fc.tuple(...TOOL_NAMES.map(toolPlanArb)),
  turns: fc.array(turnArb, { minLength: 1, maxLength: 10 }),
  maxIters: fc.oneof(fc.constant(1), fc.integer({ min: 2, max: 8 })),
  compaction: fc.option(fc.record({ maxContextTokens: fc.integer({ min: 50, max: 1500 }), keepRecent: fc.integer({ min: 1, max: 3 }), delayMs: fc.constantFrom(0, 3, 20) }), { nil: null }),
}).map((s) => Object.assign(s, { [fc.toStringMethod]: () => `\n${describeScenario(s)}\nsteps:` }))
