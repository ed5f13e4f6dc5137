// The steps of a generated conversation, as fast-check commands on the World: send a message,
// answer a pause (confirm, deny, edit, partly, or give external results), interrupt a parked reply,
// USER_INTERRUPT while idle, restart from the log, crash mid-reply. Each is driven with a random
// interference, checks its own outcome, then every invariant; each prints as a line of a script.
import fc from 'fast-check'
import { isDeepStrictEqual } from 'node:util'
import {
  counterClock, ExternalExecutionResultEvent, memoryLog, replay, TextBlock, ToolResultBlock, UserConfirmResultEvent,
  UserInterruptEvent, UserMsg, type AgentEvent, type AgentInput, type ToolCallBlock,
} from '../../../lib/index.js'
import { checkWorld } from './checks.js'
import { avoiding } from './config.js'
import { describeInterference, drive, FORMS, type Form, type Interference, type Via } from './drive.js'
import { runProblems } from './runChecks.js'
import { attach, newAgent, type World } from './world.js'

export type Step = fc.AsyncCommand<World, World>

/** A step prints as one line of the counterexample's script. */
export abstract class Printed {
  abstract label: () => string
  toString(): string {
    return `\n  ${this.label()}`
  }
}
const inputs = counterClock('in')

export const interferenceArb: fc.Arbitrary<Interference> = fc
  .constantFrom<Via>('stream', 'observable', 'reply', 'dispatch')
  .chain((via) => fc.record({
    via: fc.constant(via),
    form: fc.oneof({ weight: 2, arbitrary: fc.constant<Form>('none') }, { weight: 3, arbitrary: fc.constantFrom(...FORMS[via]) }),
    at: fc.integer({ min: 1, max: 40 }),
  }))

/** Drives `input`, checks the run and then the world; throws the problems found. */
const step = async (world: World, kind: string, name: string, input: AgentInput, interference: Interference, extra: (w: World) => string[] = () => []) => {
  world.trace.push(`${kind} by ${interference.via}${interference.form === 'none' ? '' : `, ${interference.form}`}`)
  const run = await drive(world, input, interference)
  const problems = [...runProblems(world, run), ...extra(world)]
  if (problems.length) throw new Error(`After ${name}:\n  - ${problems.join('\n  - ')}`)
  checkWorld(world, name)
}

const status = (w: World) => w.agent.state.status

class Send extends Printed implements Step {
  constructor(readonly text: string, readonly how: Interference) {
    super()
  }
  check = (w: World) => status(w) === 'idle'
  run = (w: World) => step(w, 'send', this.label(), UserMsg({ content: this.text }, inputs), this.how)
  label = () => `send ${JSON.stringify(this.text)} (${describeInterference(this.how)})`
}

export interface Answer { prefer: 'asking' | 'submitted'; pick: number; deny: number; edit: boolean; rule: 'none' | 'any input' | 'this input' | 'deny any'; state: 'success' | 'error'; blocks: boolean }

/** The calls `mask` picks among `calls` (all of them when it picks none). */
const pick = <T>(calls: T[], mask: number): T[] => {
  const picked = calls.filter((_, i) => mask & (1 << i))
  return picked.length ? picked : calls
}

class Resume extends Printed implements Step {
  /** What the answer turned out to be in the state it met (printed in a counterexample). */
  private chosen: string | null = null
  constructor(readonly answer: Answer, readonly how: Interference) {
    super()
  }
  check = (w: World) => status(w) === 'paused'
  async run(w: World) {
    const { reply_id, waiting_for } = w.agent.state
    const asking = waiting_for.filter((c) => c.state === 'asking')
    const submitted = waiting_for.filter((c) => c.state === 'submitted')
    const a = this.answer
    const confirming = asking.length > 0 && (a.prefer === 'asking' || submitted.length === 0)
    const calls = pick(confirming ? asking : submitted, a.pick)
    const denied = new Set(confirming ? calls.filter((_, i) => a.deny & (1 << i)).map((c) => c.id) : [])
    const input = confirming
      ? UserConfirmResultEvent({ reply_id: reply_id!, confirm_results: calls.map((call) => ({
        confirmed: !denied.has(call.id),
        tool_call: a.edit ? { ...call, input: JSON.stringify({ x: 'edited' }) } : call,
        rules: a.rule === 'none' ? null : [{
          tool_name: call.name, rule_content: a.rule === 'this input' ? call.input : null, behavior: a.rule === 'deny any' ? 'deny' as const : 'allow' as const, source: 'user',
        }],
      })) }, inputs)
      : ExternalExecutionResultEvent({ reply_id: reply_id!, execution_results: calls.map((call) => ToolResultBlock({
        id: call.id, name: call.name, state: a.state, metadata: { by: 'test' },
        output: a.blocks ? [TextBlock(`ext:${call.id}`, inputs), { type: 'data', id: `${call.id}-ext`, source: { type: 'base64', data: 'aGk=', media_type: 'image/png' }, created_at: 't', finished_at: 't' }] : `ext:${call.id}`,
      }, inputs)) }, inputs)
    const extras = [a.edit && 'input edited', a.rule !== 'none' && `rule: allow ${a.rule}`.replace('allow deny', 'deny')].filter(Boolean).join(', ')
    this.chosen = confirming
      ? `${calls.map((c) => `${denied.has(c.id) ? 'deny' : 'confirm'} ${c.id}`).join(', ')}${extras ? ` (${extras})` : ''}`
      : `${a.state} results${a.blocks ? ' (text and image)' : ''} for ${calls.map((c) => c.id).join(', ')}`
    await step(w, confirming ? 'confirm' : 'external result', this.label(), input, this.how, () => answered(w, calls, denied, confirming ? null : a.state))
  }
  label = () => `answer the pause: ${this.chosen ?? JSON.stringify(this.answer)} (${describeInterference(this.how)})`
}

/** A denied call gets a `denied` result; an external result is recorded with its state (unless interrupted since). */
const answered = (w: World, calls: ToolCallBlock[], denied: Set<string>, external: 'success' | 'error' | null): string[] => {
  const msg = w.agent.state.reply_msg ?? w.agent.state.context.at(-1)
  const problems: string[] = []
  for (const call of calls) {
    const result = msg?.content.find((b) => b.type === 'tool_result' && b.id === call.id)
    const state = result?.type === 'tool_result' ? result.state : 'missing'
    if (denied.has(call.id) && state !== 'denied' && state !== 'interrupted') problems.push(`denied call ${call.id} has a ${state} result`)
    if (external && state !== external && state !== 'interrupted') problems.push(`external result for ${call.id} recorded as ${state}, not ${external}`)
  }
  return problems
}

class InterruptParked extends Printed implements Step {
  constructor(readonly via: 'stream' | 'reply' | 'dispatch' | 'interrupt()') {
    super()
  }
  check = (w: World) => status(w) === 'paused'
  async run(w: World) {
    const before = w.agent.log.length
    const open = (w.agent.state.reply_msg?.content ?? []).filter((b) => b.type === 'tool_call' && b.state !== 'finished').map((b) => b.id)
    if (this.via === 'interrupt()') {
      w.trace.push('interrupt parked by interrupt()')
      await w.agent.interrupt()
    } else {
      await step(w, 'interrupt parked', this.label(), UserInterruptEvent({ reply_id: w.agent.state.reply_id! }, inputs), { via: this.via, form: 'none', at: 0 })
    }
    const added = w.agent.log.slice(before)
    const problems: string[] = []
    if (added.some((e) => e.type === 'MODEL_CALL_START' || e.type === 'TOOL_CALL_START')) problems.push('reasoning happened after USER_INTERRUPT')
    const end = added.at(-1)
    if (end?.type !== 'REPLY_END' || end.finished_reason !== 'interrupted') problems.push(`USER_INTERRUPT on a parked reply ended with ${end?.type}`)
    const last = w.agent.state.context.at(-1)
    for (const id of open) {
      const result = last?.content.find((b) => b.type === 'tool_result' && b.id === id)
      if (result?.type !== 'tool_result' || result.state !== 'interrupted') problems.push(`open call ${id} was not closed as interrupted`)
    }
    if (problems.length) throw new Error(`After ${this.label()}:\n  - ${problems.join('\n  - ')}`)
    checkWorld(w, this.label())
  }
  label = () => `interrupt the parked reply (${this.via})`
}

class NoopInterrupt extends Printed implements Step {
  constructor(readonly via: 'stream' | 'reply' | 'dispatch' | 'interrupt()') {
    super()
  }
  check = (w: World) => status(w) === 'idle' && w.agent.state.reply_id !== null
  async run(w: World) {
    w.trace.push(`noop USER_INTERRUPT by ${this.via}`)
    const before = w.agent.state
    const log = JSON.stringify(w.agent.log)
    if (this.via === 'interrupt()') await w.agent.interrupt()
    else {
      const run = await drive(w, UserInterruptEvent({ reply_id: before.reply_id! }, inputs), { via: this.via, form: 'none', at: 0 })
      if (run.yielded.length) throw new Error(`USER_INTERRUPT on an idle agent yielded ${run.yielded.map((e) => e.type).join(' ')}`)
    }
    if (w.agent.state !== before || JSON.stringify(w.agent.log) !== log) throw new Error('USER_INTERRUPT on an idle agent changed the state or the log')
    checkWorld(w, this.label())
  }
  label = () => `USER_INTERRUPT while idle (${this.via})`
}

class Restart extends Printed implements Step {
  constructor(readonly json: boolean) {
    super()
  }
  check = (w: World) => status(w) !== 'running'
  async run(w: World) {
    w.trace.push('restart')
    const old = w.agent
    const events = (this.json ? JSON.parse(JSON.stringify(old.log)) : [...old.log]) as AgentEvent[]
    const agent = newAgent(w, memoryLog(events))
    await old.close()
    if (!isDeepStrictEqual(agent.state, old.state)) throw new Error(`${this.label()}: the restored state differs from the live one`)
    attach(w, agent)
    checkWorld(w, this.label())
  }
  label = () => `restart from the log${this.json ? ' (through JSON)' : ''}`
}

class Crash extends Printed implements Step {
  constructor(readonly at: number) {
    super()
  }
  check = (w: World) => status(w) === 'idle'
  async run(w: World) {
    w.trace.push('crash')
    const old = w.agent
    let copy: AgentEvent[] = [...old.log]
    let n = 0
    for await (const _ of old.replyStream(UserMsg({ content: 'crash test' }, inputs))) {
      copy = [...old.log]
      if (++n === this.at) break
    }
    await old.close()
    const cut = replay(copy)
    const agent = newAgent(w, memoryLog(copy))
    attach(w, agent)
    const added = agent.log.slice(copy.length)
    const last = added.at(-1)
    if (cut.status === 'running' && (last?.type !== 'REPLY_END' || last.finished_reason !== 'interrupted'))
      throw new Error(`${this.label()}: a log cut mid-reply was restored without REPLY_END(interrupted), added [${added.map((e) => e.type).join(' ')}]`)
    if (cut.status !== 'running' && added.length) throw new Error(`${this.label()}: restoring a ${cut.status} log appended ${added.length} events`)
    checkWorld(w, this.label())
  }
  label = () => `crash after event ${this.at} of a new reply, restore from the log so far`
}

const viaArb = fc.constantFrom('stream' as const, 'reply' as const, 'dispatch' as const, 'interrupt()' as const)

export const stepArbs: fc.Arbitrary<Step>[] = [
  fc.tuple(fc.string({ minLength: 1, maxLength: 8 }).filter((t) => t.trim() !== '' || !avoiding('blankText')), interferenceArb).map(([t, h]) => new Send(t, h)),
  fc.tuple(fc.record({
    prefer: fc.constantFrom('asking' as const, 'submitted' as const), pick: fc.nat(15), deny: fc.nat(15),
    edit: fc.boolean(), rule: fc.constantFrom('none' as const, 'any input' as const, 'this input' as const, 'deny any' as const), state: fc.constantFrom('success' as const, 'error' as const), blocks: fc.boolean(),
  }), interferenceArb).map(([a, h]) => new Resume(a, h)),
  viaArb.map((v) => new InterruptParked(v)),
  viaArb.map((v) => new NoopInterrupt(v)),
  fc.boolean().map((j) => new Restart(j)),
  fc.integer({ min: 1, max: 25 }).map((n) => new Crash(n)),
]
