// The properties checked after every step of a generated conversation: REFERENCE.md section 5
// (invariants 1-6), replay equivalence (also through JSON), the wire schemas, the event protocol
// (helpers/logShape.ts and lib/core/logCheck.ts), an append-only log and context, and the journal of
// tool bodies. Each returns the problems found.
import { isDeepStrictEqual } from 'node:util'
import { checkLog, replay, UserMsg, type AgentEvent, type AgentState, type Msg } from '../../../lib/index.js'
import { formatAnthropicMessages, formatOpenAIMessages } from '../../../lib/models/index.js'
import { anthropicProblems, openAIProblems } from '../../models/helpers/validate.js'
import { logProblems } from './logShape.js'
import { eventProblems, msgProblems } from '../../helpers/wireSchemas.js'
import type { World } from './world.js'

/** Everything that must hold between steps; throws one error listing what does not. */
export const checkWorld = (world: World, when: string): void => {
  const { agent } = world
  const state = agent.state
  const log = agent.log
  const problems = [...world.problems.splice(0), ...world.journal.problems.splice(0)]
  if (state.status === 'running') problems.push('the reply is still running after the step settled')
  if (state.seq !== log.length) problems.push(`state.seq ${state.seq} but the log holds ${log.length} events`)
  problems.push(...appendOnly(world, log, state), ...replayProblems(world, state, log), ...logProblems(log).slice(0, 5))
  // The project's own log checker (lib/core/logCheck.ts) must accept every log the agent writes.
  problems.push(...checkLog(log).violations.slice(0, 5).map((f) => `checkLog #${f.seq}: ${f.message}`))
  for (const event of log) problems.push(...eventProblems(event).slice(0, 3))
  for (const msg of messagesOf(state)) problems.push(...msgProblems(msg).slice(0, 3).map((p) => `message ${msg.id}: ${p}`))
  problems.push(...toolCallProblems(state), ...replyEndProblems(state, log), ...usageProblems(state, log), ...rawInputProblems(state, log))
  problems.push(...requestProblems(world, state), ...bodyProblems(world))
  if (problems.length) throw new Error(`After ${when}:\n  - ${[...new Set(problems)].join('\n  - ')}\n  (log ends: ${logTail(log)})`)
}

/** The last events of a log, for a failure's report. */
export const logTail = (log: readonly AgentEvent[], n = 14): string =>
  log.slice(-n).map((e) => `#${e.metadata.seq} ${e.type}${'tool_call_id' in e ? `(${e.tool_call_id})` : ''}`).join(' ')

export const messagesOf = (state: AgentState): Msg[] => (state.reply_msg ? [...state.context, state.reply_msg] : state.context)

/** The log and the ended messages only grow: nothing seen before has changed. */
const appendOnly = (world: World, log: readonly AgentEvent[], state: AgentState): string[] => {
  const problems: string[] = []
  if (log.length < world.seenLog.length) problems.push(`the log shrank from ${world.seenLog.length} to ${log.length} events`)
  world.seenLog.forEach((json, i) => {
    if (log[i] && JSON.stringify(log[i]) !== json) problems.push(`log event #${i + 1} changed`)
  })
  for (let i = world.seenLog.length; i < log.length; i++) world.seenLog.push(JSON.stringify(log[i]))
  world.seenContext.forEach((msg, i) => {
    if (!isDeepStrictEqual(state.context[i], msg)) problems.push(`context message #${i + 1} (${msg.id}) changed after its reply ended`)
  })
  world.seenContext = [...state.context]
  return problems
}

/** Invariant 3: the log folds to the state, also through JSON, without calling a model or a tool. */
const replayProblems = (world: World, state: AgentState, log: readonly AgentEvent[]): string[] => {
  const problems: string[] = []
  const calls = [world.model.requests.length, world.journal.bodies.length]
  if (!isDeepStrictEqual(replay(log), state)) problems.push('replay(log) differs from agent.state')
  if (!isDeepStrictEqual(replay(JSON.parse(JSON.stringify(log)) as AgentEvent[]), state)) problems.push('replay of the JSON round trip of the log differs from agent.state')
  if (world.model.requests.length !== calls[0] || world.journal.bodies.length !== calls[1]) problems.push('replaying called the model or a tool')
  return problems
}

/** Invariant 1: every finished call has exactly one result after it; once idle, every call is finished. */
export const toolCallProblems = (state: AgentState): string[] => {
  const problems: string[] = []
  const idle = state.status === 'idle'
  if (idle && (state.reply_msg || state.loop || state.waiting_for.length)) problems.push('idle with a reply in progress')
  if (state.status === 'paused' && (!state.waiting_for.length || state.waiting_for.some((c) => c.state !== 'asking' && c.state !== 'submitted')))
    problems.push(`paused, waiting for ${JSON.stringify(state.waiting_for.map((c) => [c.id, c.state]))}`)
  for (const msg of messagesOf(state)) {
    const ended = msg !== state.reply_msg
    msg.content.forEach((block, i) => {
      // The agent's own messages only: a caller's message is kept as it was sent.
      if (ended && msg.role === 'assistant' && block.finished_at === null) problems.push(`${msg.id}: block ${block.id} (${block.type}) was never finished`)
      if (block.type !== 'tool_call') return
      const results = msg.content.map((b, j) => [b, j] as const).filter(([b]) => b.type === 'tool_result' && b.id === block.id)
      if (results.length > 1) problems.push(`${msg.id}: call ${block.id} has ${results.length} results`)
      if (results.some(([, j]) => j < i)) problems.push(`${msg.id}: a result of ${block.id} comes before its call`)
      const result = results[0]?.[0]
      if (block.state === 'finished' && (!result || result.type !== 'tool_result' || result.state === 'running')) problems.push(`${msg.id}: finished call ${block.id} has no final result`)
      if (ended && block.state !== 'finished') problems.push(`${msg.id}: call ${block.id} is ${block.state} after its reply ended`)
    })
  }
  return problems
}

/** Invariant 2: one REPLY_END per reply that is not parked, none while parked. */
const replyEndProblems = (state: AgentState, log: readonly AgentEvent[]): string[] => {
  const problems: string[] = []
  const ends = new Map<string, number>()
  for (const e of log) if (e.type === 'REPLY_END') ends.set(e.reply_id, (ends.get(e.reply_id) ?? 0) + 1)
  for (const e of log) {
    if (e.type !== 'REPLY_START') continue
    const inProgress = e.reply_id === state.reply_id && state.status !== 'idle'
    const n = ends.get(e.reply_id) ?? 0
    if (n !== (inProgress ? 0 : 1)) problems.push(`reply ${e.reply_id} has ${n} REPLY_END while ${inProgress ? state.status : 'over'}`)
  }
  return problems
}

/** Invariant 6: each model call ends with the usage it reported last; the session total is their sum. */
const usageProblems = (state: AgentState, log: readonly AgentEvent[]): string[] => {
  const problems: string[] = []
  const total = { input_tokens: 0, output_tokens: 0, cache_input_tokens: 0, cache_creation_input_tokens: 0 }
  let reported = { ...total }
  for (const e of log) {
    if (e.type === 'MODEL_CALL_START') reported = { input_tokens: 0, output_tokens: 0, cache_input_tokens: 0, cache_creation_input_tokens: 0 }
    if (e.type === 'MODEL_CALL_USAGE') reported = { input_tokens: e.input_tokens, output_tokens: e.output_tokens, cache_input_tokens: e.cache_input_tokens, cache_creation_input_tokens: e.cache_creation_input_tokens }
    if (e.type !== 'MODEL_CALL_END') continue
    const ended = { input_tokens: e.input_tokens, output_tokens: e.output_tokens, cache_input_tokens: e.cache_input_tokens, cache_creation_input_tokens: e.cache_creation_input_tokens }
    if (!isDeepStrictEqual(ended, reported)) problems.push(`MODEL_CALL_END(${e.finished_reason}) #${e.metadata.seq} carries ${JSON.stringify(ended)}, but the call reported ${JSON.stringify(reported)}`)
    for (const k of Object.keys(total) as (keyof typeof total)[]) total[k] += ended[k]
  }
  if (!isDeepStrictEqual(state.usage, total)) problems.push(`state.usage ${JSON.stringify(state.usage)} is not the sum of the model calls ${JSON.stringify(total)}`)
  return problems
}

/** The context keeps a call's raw argument text (what the model streamed, or what the user's edit gave). */
const rawInputProblems = (state: AgentState, log: readonly AgentEvent[]): string[] => {
  const raw = new Map<string, string>()
  for (const e of log) {
    if (e.type === 'TOOL_CALL_START') raw.set(e.tool_call_id, '')
    if (e.type === 'TOOL_CALL_DELTA') raw.set(e.tool_call_id, (raw.get(e.tool_call_id) ?? '') + e.delta)
    if (e.type === 'USER_CONFIRM_RESULT') for (const r of e.confirm_results) if (r.confirmed) raw.set(r.tool_call.id, r.tool_call.input)
  }
  const problems: string[] = []
  for (const msg of messagesOf(state)) {
    for (const b of msg.content) if (b.type === 'tool_call' && b.input !== raw.get(b.id)) problems.push(`call ${b.id} holds ${JSON.stringify(b.input)}, not the raw ${JSON.stringify(raw.get(b.id))}`)
  }
  return problems
}

/** Invariant 1, second half: every request the model got, and the next one, is valid for both providers. */
const requestProblems = (world: World, state: AgentState): string[] => {
  const problems: string[] = []
  const requests: [string, Msg[]][] = world.model.requests.slice(world.checkedRequests).map((r, i) => [`request ${world.checkedRequests + i + 1}`, r.messages])
  world.checkedRequests = world.model.requests.length
  if (state.status === 'idle' && state.context.length) {
    const system = world.model.requests[0]?.messages[0]
    if (system) requests.push(['the next request', [system, ...state.context, UserMsg({ content: 'next' })]])
  }
  for (const [name, messages] of requests) {
    problems.push(...openAIProblems(formatOpenAIMessages(messages)).map((p) => `${name} for OpenAI: ${p}`))
    problems.push(...anthropicProblems(formatAnthropicMessages(messages)).map((p) => `${name} for Anthropic: ${p}`))
  }
  return problems
}

/**
 * Invariant 4 for tool bodies: a body still running when its reply closed had its signal fired by
 * then (so one that honours it stops; one that ignores it runs on, and the log and the context,
 * checked append-only after every body settled, show nothing of its late output).
 */
const bodyProblems = (world: World): string[] => {
  const problems: string[] = []
  for (const body of world.journal.bodies) {
    const end = body.agent.log.find((e) => e.type === 'REPLY_END' && e.reply_id === body.reply_id)
    if (!end) continue
    const endSeq = end.metadata.seq as number
    const runningAtEnd = body.settleSeq === null || body.settleSeq > endSeq
    if (runningAtEnd && (body.abortSeq === null || body.abortSeq > endSeq))
      problems.push(`tool ${body.tool} (${body.call_id}) was still running when its reply ended at #${endSeq}, but its signal ${body.abortSeq === null ? 'never fired' : `fired only at #${body.abortSeq}`}`)
  }
  return problems
}
