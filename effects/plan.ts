// The scheduler's decision, as a pure function of the state and the tool set: what the reply does
// next, in AgentScope's order. No open calls: end after a final answer, end with
// exceed_max_iters once `cur_iter` (finished rounds) reaches maxIters, else call the model. Open
// calls: the first unfinished batch (a run of concurrency-safe calls, or one other call) is
// checked (input, the tool's own deny, rules, then the tool's permission) and run, asked, submitted or answered.
// With a structured output asked for (`output` names its tool), the reply ends once the value is
// there; until then each model call is preceded by a reminder hint, the tool is forced from
// maxIters on, and the reply ends with exceed_max_iters after the grace rounds. Steers join at a
// boundary (no open call) before anything else; a gentle stop closes the reply once nothing runs.
// User code (schemas, permission functions) is contained: whatever it throws or answers becomes
// that call's `error` result.
import { describe, messageOf } from '../lib/core/errors.js'
import { jsonDepth, MAX_JSON_DEPTH } from '../lib/core/jsonValue.js'
import type { ToolCallBlock } from '../lib/core/messages.js'
import type { ToolChoice } from '../lib/models/model.js'
import { outputReminder, outputValidationError, STRUCTURED_OUTPUT_GRACE_ITERS } from '../lib/agent/structuredOutput.js'
import type { Permission, Tool } from '../lib/agent/tools.js'
import { schemaIssueText } from '../lib/agent/schemaIssue.js'
import { isAdvanceable, isDeniedByUser, isRunning, selectRoundCalls, selectRunningResults } from '../reducers/selectors.js'
import type { AgentState } from '../reducers/state.js'

export type Action =
  | { kind: 'model'; tool_choice: ToolChoice; hint?: string }
  | { kind: 'end'; reason: 'completed' | 'exceed_max_iters' }
  | { kind: 'run'; call: ToolCallBlock; tool: Tool; input: unknown }
  | { kind: 'submit'; call: ToolCallBlock }
  | { kind: 'ask'; call: ToolCallBlock }
  | { kind: 'answer'; call: ToolCallBlock; state: 'error' | 'denied'; text: string }
  | { kind: 'join'; msg_ids: string[] }
  | { kind: 'stop'; returnQueue: boolean }

export interface PlanContext {
  tools: ReadonlyMap<string, Tool>
  maxIters: number
  /** The structured-output tool the reply must end with a successful call of, if any. */
  output?: string | null
  /** The calls of one model response that are run (AgentOptions.maxCallsPerResponse; default DEFAULT_MAX_CALLS_PER_RESPONSE). */
  maxCallsPerResponse?: number
}

/** The calls of one model response that are run at most, by default; each further call gets a coded `error` result. */
export const DEFAULT_MAX_CALLS_PER_RESPONSE = 100

/** What the model reads for a call past the limit of one response (code LIMIT_REACHED). */
export const tooManyCallsText = (name: string, calls: number, max: number) =>
  `Error (LIMIT_REACHED): this response made ${calls} tool calls and at most ${max} are run per response (maxCallsPerResponse); this call of "${name}" was not run. Make the calls still needed in a later response.`

/**
 * What the model reads for a denied call: the standard reminder, with the user's reason when one was
 * given. A reminder tag inside the reason is written with `&lt;`, so the reason cannot close the
 * reminder early and pass its rest off as something else.
 */
export const denialText = (name: string, reason?: string) =>
  `<system-reminder>The execution of tool "${name}" is denied by user!${reason === undefined ? '' : `\nReason: ${reason.replace(REMINDER_TAG, '&lt;$1')}`}</system-reminder>`

const REMINDER_TAG = /<(\s*\/?\s*system-reminder)/gi

export const planNextStep = (state: AgentState, { tools, maxIters, output = null, maxCallsPerResponse = DEFAULT_MAX_CALLS_PER_RESPONSE }: PlanContext): Action[] => {
  if (!isAdvanceable(state)) return []
  const loop = state.loop!
  const round = selectRoundCalls(state)
  // A gentle stop: once nothing runs, the reply is closed (the calls not started get interrupted results).
  if (loop.stopping) return round.some((c) => isRunning(state, c)) || loop.starting?.length ? [] : [{ kind: 'stop', returnQueue: !loop.stopping.keep_queue }]
  const open = round.filter((c) => c.state !== 'finished')
  if (open.length === 0) {
    // Steers waiting at a step boundary join before the next model call, also after a final answer.
    const goesOn = output ? !!loop.structured_output || state.cur_iter < maxIters + STRUCTURED_OUTPUT_GRACE_ITERS : loop.round_final || state.cur_iter < maxIters
    if (state.steers.length && goesOn) return [{ kind: 'join', msg_ids: state.steers.map((e) => e.id) }]
    if (output) {
      if (loop.structured_output) return [{ kind: 'end', reason: 'completed' }]
      if (state.cur_iter >= maxIters + STRUCTURED_OUTPUT_GRACE_ITERS) return [{ kind: 'end', reason: 'exceed_max_iters' }]
      const forced = state.cur_iter >= maxIters
      return [{ kind: 'model', tool_choice: forced ? { name: output } : 'auto', hint: outputReminder(output, forced) }]
    }
    if (loop.round_final) return [{ kind: 'end', reason: 'completed' }]
    if (state.cur_iter >= maxIters) return [{ kind: 'end', reason: 'exceed_max_iters' }]
    return [{ kind: 'model', tool_choice: 'auto' }]
  }
  // The calls past the limit of one response are answered first, with an error the model can read.
  if (round.length > maxCallsPerResponse) {
    const excess = round.slice(maxCallsPerResponse).filter((c) => c.state !== 'finished' && c.state !== 'submitted' && c.state !== 'allowed')
    if (excess.length) return excess.map((call) => ({ kind: 'answer', call, state: 'error', text: tooManyCallsText(call.name, round.length, maxCallsPerResponse) }))
  }
  const batch = firstOpenBatch(round, tools)
  // As AgentScope: while a call waits for the user or an external result, pending calls wait too;
  // and one confirmation per tool in a batch (the rule it suggests covers the tool's other calls).
  const awaiting = round.some((c) => (c.state === 'asking' && !isDeniedByUser(state, c.id)) || c.state === 'submitted')
  const askedTools = new Set<string>()
  const actions: Action[] = []
  const running = selectRunningResults(state)
  // The user's denials are answered first, as AgentScope answers them on receiving the confirmation, before it runs anything.
  const denials: Action[] = []
  for (const call of batch) {
    if (call.state === 'finished' || call.state === 'submitted' || (call.state === 'allowed' && running.has(call.id))) continue
    if (call.state === 'pending' && awaiting) continue
    if (isDeniedByUser(state, call.id)) {
      denials.push({ kind: 'answer', call, state: 'denied', text: denialText(call.name, loop.denial_reasons?.[call.id]) })
      continue
    }
    if (call.state === 'asking') continue
    const tool = tools.get(call.name)
    if (!tool) {
      actions.push({ kind: 'answer', call, state: 'error', text: `Error: there is no tool named "${call.name}". Available tools: ${[...tools.keys()].join(', ') || 'none'}.` })
      continue
    }
    const parsed = parseInput(tool, call.input)
    if (!parsed.ok) {
      actions.push({ kind: 'answer', call, state: 'error', text: call.name === output ? outputValidationError(parsed.issue ?? parsed.error) : parsed.error })
      continue
    }
    const permission = decide(state, tool, call, parsed.input)
    if (permission === 'deny') actions.push({ kind: 'answer', call, state: 'denied', text: denialText(call.name) })
    else if (permission === 'ask') {
      if (!askedTools.has(call.name)) actions.push({ kind: 'ask', call })
      askedTools.add(call.name)
    }
    else if (typeof permission !== 'string') actions.push({ kind: 'answer', call, state: 'error', text: permission.error })
    else if (tool.external) actions.push({ kind: 'submit', call })
    else actions.push({ kind: 'run', call, tool, input: parsed.input })
  }
  return denials.length ? [...denials, ...actions] : actions
}

/** Batches of a round: consecutive concurrency-safe calls together, every other call alone. */
const firstOpenBatch = (round: ToolCallBlock[], tools: ReadonlyMap<string, Tool>): ToolCallBlock[] => {
  let batch: ToolCallBlock[] = []
  for (const call of round) {
    const safe = tools.get(call.name)?.concurrencySafe === true
    const joins = safe && batch.length > 0 && tools.get(batch[0].name)?.concurrencySafe === true
    if (!joins) {
      if (batch.some((c) => c.state !== 'finished')) return batch
      batch = []
    }
    batch.push(call)
  }
  return batch
}

/** Tool arguments longer than this are refused before parsing (1 MB of JSON). */
const MAX_ARGUMENTS_LENGTH = 1 << 20

type Parsed = { ok: true; input: unknown } | { ok: false; error: string; issue?: string }

const parseInput = (tool: Tool, raw: string): Parsed => {
  if (raw.length > MAX_ARGUMENTS_LENGTH || jsonDepth(raw) > MAX_JSON_DEPTH)
    return { ok: false, error: `Error: the arguments of "${tool.name}" are too large or too deeply nested (at most ${MAX_ARGUMENTS_LENGTH} characters and ${MAX_JSON_DEPTH} levels). Send smaller arguments.` }
  let json: unknown
  try {
    json = raw.trim() === '' ? {} : JSON.parse(raw)
  } catch (error) {
    return { ok: false, error: `Error: the arguments of "${tool.name}" are not valid JSON (${(error as Error).message}). Send a JSON object that matches the tool's schema.` }
  }
  let result: ReturnType<Tool['input']['safeParse']>
  try {
    // zod lets an exception thrown inside a transform or refine escape safeParse.
    result = tool.input.safeParse(json)
  } catch (error) {
    return { ok: false, error: `Error: the input schema of "${tool.name}" failed on these arguments: ${messageOf(error)}. Check the arguments and call the tool again.` }
  }
  if (result.success) return { ok: true, input: result.data }
  const issues = result.error.issues.map((i) => `${i.path.join('.') || '(input)'}: ${i.message}`).join('; ')
  return { ok: false, error: `Error: invalid arguments for "${tool.name}": ${issues}. Fix them and call the tool again.`, issue: schemaIssueText(result.error.issues[0], json) }
}

/**
 * The tool's own permission is final when it denies (or its check fails): no confirmation or rule
 * runs such a call. Otherwise a confirmed call runs, then granted rules decide (the last matching
 * one wins), then the tool's own answer.
 */
const decide = (state: AgentState, tool: Tool, call: ToolCallBlock, input: unknown): Permission | { error: string } => {
  const own = ownPermission(state, tool, input)
  if (own === 'deny' || typeof own !== 'string') return own
  if (call.state === 'allowed') return 'allow'
  for (let i = state.permission_rules.length - 1; i >= 0; i--) {
    const rule = state.permission_rules[i]
    if (rule.tool_name !== tool.name || rule.behavior === 'passthrough') continue
    if (rule.rule_content === null || rule.rule_content === call.input || rule.rule_content === JSON.stringify(input)) return rule.behavior
  }
  return own
}

const ownPermission = (state: AgentState, tool: Tool, input: unknown): Permission | { error: string } => {
  const { permission = 'allow' } = tool
  if (typeof permission === 'string') return permission
  let answer: unknown
  try {
    answer = permission(input, state)
  } catch (error) {
    return { error: `Error: the permission check of "${tool.name}" failed: ${messageOf(error)}` }
  }
  // Anything but the exact three answers is a failure of the check, never a permission to run.
  if (answer === 'allow' || answer === 'ask' || answer === 'deny') return answer
  return { error: `Error: the permission check of "${tool.name}" failed: it answered ${describe(answer)} instead of 'allow', 'ask' or 'deny'.` }
}
