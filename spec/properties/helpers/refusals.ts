// Input the agent must refuse, as steps of a generated conversation: REFERENCE.md invariant 5 and
// issue 3's refusals (a message while parked, a wrong reply_id, a call that is not asking / not
// submitted / already closed, ...) and arbitrary values. Each must throw an AgentError with the
// expected `code` through every entry point, and leave the log byte for byte and the state as they were.
import fc from 'fast-check'
import {
  AgentError, counterClock, ExternalExecutionResultEvent, ToolResultBlock, UserConfirmResultEvent, UserInterruptEvent, UserMsg,
  type Agent, type AgentErrorCode, type ToolCallBlock,
} from '../../../lib/index.js'
import { checkWorld } from './checks.js'
import { Printed, type Step } from './commands.js'
import type { World } from './world.js'

export type Entry = 'replyStream' | 'reply' | 'reply$' | 'dispatch'
export const entryArb = fc.constantFrom<Entry>('replyStream', 'reply', 'reply$', 'dispatch')
const clock = counterClock('bad')

/** Sends `input` through `entry`; resolves to what it threw, or to 'accepted'. */
export const sendBad = async (agent: Agent, input: unknown, entry: Entry): Promise<unknown> => {
  try {
    if (entry === 'replyStream') agent.replyStream(input as never)
    else if (entry === 'dispatch') agent.dispatch(input as never)
    else if (entry === 'reply') await agent.reply(input as never)
    else await new Promise((resolve, reject) => agent.reply$(input as never).subscribe({ error: reject, complete: () => resolve(null) }))
  } catch (error) {
    return error
  }
  return 'accepted'
}

/** Sends `input` and checks it was refused with a code (`code`, when given) and changed nothing. */
export const expectRefused = async (agent: Agent, input: unknown, entry: Entry, code?: AgentErrorCode): Promise<void> => {
  const state = agent.state
  const log = JSON.stringify(agent.log)
  const error = await sendBad(agent, input, entry)
  const what = `${entry}(${describeValue(input)})`
  if (!(error instanceof AgentError) || typeof error.code !== 'string' || !error.message) throw new Error(`${what} was not refused with an AgentError: ${error instanceof Error ? error.stack : String(error)}`)
  if (code && error.code !== code) throw new Error(`${what} was refused with ${error.code} (${error.message}), expected ${code}`)
  if (JSON.stringify(agent.log) !== log) throw new Error(`${what} was refused with ${error.code} but the log changed`)
  if (agent.state !== state) throw new Error(`${what} was refused with ${error.code} but the state changed`)
}

export const describeValue = (value: unknown): string => {
  try {
    const text = typeof value === 'function' ? 'a function' : fc.stringify(value)
    return text.length > 160 ? `${text.slice(0, 160)}...` : text
  } catch {
    return String(value)
  }
}

const fakeCall = (id: string): ToolCallBlock => ({ type: 'tool_call', id, name: 't0', input: '{"x":"a"}', state: 'asking', created_at: 't', finished_at: 't' })
const confirm = (reply_id: string, calls: ToolCallBlock[]) => UserConfirmResultEvent({ reply_id, confirm_results: calls.map((tool_call) => ({ confirmed: true, tool_call })) }, clock)
const external = (reply_id: string, calls: ToolCallBlock[], state: 'success' | 'running' = 'success') =>
  ExternalExecutionResultEvent({ reply_id, execution_results: calls.map((c) => ({ ...ToolResultBlock({ id: c.id, name: c.name, output: 'late' }, clock), state })) }, clock)

interface Refusal { applies: (w: World) => boolean; input: (w: World) => unknown; code: AgentErrorCode }
const s = (w: World) => w.agent.state
const paused = (w: World) => s(w).status === 'paused'
const waiting = (w: World, state: 'asking' | 'submitted') => s(w).waiting_for.filter((c) => c.state === state)
const closed = (w: World) => (s(w).reply_msg?.content ?? []).filter((b): b is ToolCallBlock => b.type === 'tool_call' && b.state === 'finished')

export const REFUSALS: Record<string, Refusal> = {
  'a new message while parked': { applies: paused, input: () => UserMsg({ content: 'hello?' }, clock), code: 'REPLY_PAUSED' },
  'a confirmation for another reply': { applies: (w) => s(w).reply_id !== null, input: () => confirm('not-this-reply', [fakeCall('c1_0')]), code: 'WRONG_REPLY' },
  'USER_INTERRUPT for another reply': { applies: (w) => s(w).reply_id !== null, input: () => UserInterruptEvent({ reply_id: 'not-this-reply' }, clock), code: 'WRONG_REPLY' },
  'an external result for another reply': { applies: (w) => s(w).reply_id !== null, input: () => external('not-this-reply', [fakeCall('c1_0')]), code: 'WRONG_REPLY' },
  'a confirmation for a call the reply lacks': { applies: paused, input: (w) => confirm(s(w).reply_id!, [fakeCall('ghost')]), code: 'UNKNOWN_CALL' },
  'a confirmation for a submitted call': { applies: (w) => paused(w) && waiting(w, 'submitted').length > 0, input: (w) => confirm(s(w).reply_id!, waiting(w, 'submitted')), code: 'NOT_ASKING' },
  'an external result for an asking call': { applies: (w) => paused(w) && waiting(w, 'asking').length > 0, input: (w) => external(s(w).reply_id!, waiting(w, 'asking')), code: 'NOT_SUBMITTED' },
  'a confirmation for a closed call': { applies: (w) => paused(w) && closed(w).length > 0, input: (w) => confirm(s(w).reply_id!, closed(w).slice(0, 1)), code: 'CALL_CLOSED' },
  'an external result for a closed call': { applies: (w) => paused(w) && closed(w).length > 0, input: (w) => external(s(w).reply_id!, closed(w).slice(0, 1)), code: 'CALL_CLOSED' },
  'one call answered twice': { applies: (w) => paused(w) && waiting(w, 'asking').length > 0, input: (w) => confirm(s(w).reply_id!, [waiting(w, 'asking')[0], waiting(w, 'asking')[0]]), code: 'INVALID_INPUT' },
  'an external result still running': { applies: (w) => paused(w) && waiting(w, 'submitted').length > 0, input: (w) => external(s(w).reply_id!, waiting(w, 'submitted'), 'running'), code: 'INVALID_INPUT' },
  'a confirmation while idle': { applies: (w) => s(w).status === 'idle' && s(w).reply_id !== null, input: (w) => confirm(s(w).reply_id!, [fakeCall('c1_0')]), code: 'NOT_PAUSED' },
  'an empty confirmation': { applies: paused, input: (w) => ({ ...confirm(s(w).reply_id!, []), confirm_results: [] }), code: 'INVALID_INPUT' },
  'an assistant message': { applies: () => true, input: () => ({ ...UserMsg({ content: 'I am the model' }, clock), role: 'assistant' }), code: 'INVALID_INPUT' },
  'an output event as input': { applies: (w) => s(w).reply_id !== null, input: (w) => ({ id: 'x', created_at: 't', metadata: {}, type: 'REPLY_END', session_id: 's', reply_id: s(w).reply_id, finished_reason: 'completed', error: null }), code: 'INVALID_INPUT' },
}

/** Refused input of a kind that applies in the current state (the n-th of those that do). */
class Refuse extends Printed implements Step {
  private kind: string | null = null
  constructor(readonly n: number, readonly entry: Entry) {
    super()
  }
  check = (w: World) => w.agent.state.status !== 'running'
  async run(w: World) {
    const kinds = Object.keys(REFUSALS).filter((k) => REFUSALS[k].applies(w))
    this.kind = kinds[this.n % kinds.length]
    w.trace.push(`refuse ${this.kind}`)
    const { input, code } = REFUSALS[this.kind]
    await expectRefused(w.agent, input(w), this.entry, code)
    checkWorld(w, this.label())
  }
  label = () => `send ${this.kind ?? `refusal #${this.n}`} by ${this.entry} (refused)`
}

class Garbage extends Printed implements Step {
  constructor(readonly value: unknown, readonly entry: Entry) {
    super()
  }
  check = (w: World) => w.agent.state.status !== 'running'
  async run(w: World) {
    w.trace.push('refuse garbage')
    await expectRefused(w.agent, this.value, this.entry)
    checkWorld(w, this.label())
  }
  label = () => `send ${describeValue(this.value)} by ${this.entry} (refused)`
}

// A string with some text is a user message (reply('hello')), so it is no garbage.
export const garbageArb: fc.Arbitrary<unknown> = fc.oneof(fc.jsonValue(), fc.anything(), fc.constantFrom(undefined, null, 0, '', [], {}, { type: 'USER_INTERRUPT' }, { role: 'user' }))
  .filter((value) => !(typeof value === 'string' && value.trim() !== ''))

export const refusalArbs: fc.Arbitrary<Step>[] = [
  fc.tuple(fc.nat(100), entryArb).map(([n, e]) => new Refuse(n, e)),
  fc.tuple(garbageArb, entryArb).map(([v, e]) => new Garbage(v, e)),
]
