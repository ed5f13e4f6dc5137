// Issue 30, randomized: random scripts of replies, steers, queues, unqueues, approvals, gentle and
// hard Stops (keeping the queue or not) and crashes at random moments of random replies (tools that
// take time, a tool that asks). Afterwards every log (each owner's, a crash's copy included) passes
// strict replay and checkLog (every call answered, nothing started after a stop, steers only at a
// step boundary), no acknowledged message is lost or started twice (each is in the context once, or
// taken back once), and steers and queued messages reach the context in the order they were acknowledged.
import fc from 'fast-check'
import { suite } from 'uvu'
import { z } from 'zod'
import {
  checkLog, createAgent, defineTool, memoryLog, replay, scriptedModel, textOf,
  type Agent, type AgentEvent, type LogStore, type ModelChunk, type ScriptedTurn, type Tool,
} from '../../lib/index.js'
import { sleep } from '../../lib/core/abort.js'
import { propertiesOf } from './helpers/config.js'

const test = suite('properties/talk')
const property = propertiesOf(test)

type Step =
  | { kind: 'reply' | 'steer' | 'queue'; whilePaused: 'refuse' | 'interrupt' | 'queue' }
  | { kind: 'unqueue'; pick: number }
  | { kind: 'stop'; when: 'now' | 'step'; keepQueue: boolean }
  | { kind: 'answer'; approve: boolean }
  | { kind: 'crash' }
  | { kind: 'wait'; ms: number }

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constantFrom('reply' as const, 'steer' as const, 'queue' as const), whilePaused: fc.constantFrom('refuse' as const, 'interrupt' as const, 'queue' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('unqueue' as const), pick: fc.nat(5) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('stop' as const), when: fc.constantFrom('now' as const, 'step' as const), keepQueue: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('answer' as const), approve: fc.boolean() }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'crash' as const }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('wait' as const), ms: fc.integer({ min: 0, max: 12 }) }) },
)

/** What the model does on each call: answer, call the slow tool (once or twice), or call the asking tool. */
const turnArb = fc.constantFrom('answer' as const, 'slow' as const, 'slow2' as const, 'ask' as const)

interface Run {
  turns: ('answer' | 'slow' | 'slow2' | 'ask')[]
  steps: Step[]
}

const tools = (): Tool[] => [
  defineTool({ name: 'slow', description: 'Takes a while', input: z.object({ ms: z.number() }), execute: async ({ ms }, { signal }) => (await sleep(ms, signal), `slept ${ms}`) }),
  defineTool({ name: 'careful', description: 'Asks first', input: z.object({}), permission: 'ask', execute: async () => 'done carefully' }),
]

/** A model whose n-th call plays turns[n % length], with call ids unique across the run (every owner's model counts on) and a short stream. */
const modelFor = (turns: Run['turns'], calls: { n: number }) => {
  const turn: ScriptedTurn = () => {
    const n = calls.n++
    const kind = turns[n % turns.length]
    const id = `call-${n}`
    const text: ModelChunk[] = [{ type: 'text', delta: 'Working' }, { type: 'text', delta: ' on it.' }]
    const call = (name: string, input: unknown, suffix = ''): ModelChunk[] => [{ type: 'tool_call', id: `${id}${suffix}`, name, delta: JSON.stringify(input) }]
    if (kind === 'slow') return [...text, { type: 'delay', ms: 2 }, ...call('slow', { ms: 6 })]
    if (kind === 'slow2') return [...text, ...call('slow', { ms: 4 }), ...call('slow', { ms: 8 }, 'b')]
    if (kind === 'ask') return [...text, ...call('careful', {})]
    return [{ type: 'delay', ms: 3 }, { type: 'text', delta: 'Answered.' }]
  }
  return scriptedModel([turn], { onExhausted: 'repeat-last' })
}

interface Sent { id: string; text: string; kind: 'steer' | 'queue' | 'reply' }

const open = (log: LogStore, turns: Run['turns'], calls: { n: number }): Agent => createAgent({ name: 'talker', model: modelFor(turns, calls), tools: tools(), maxIters: 4, log })

const runScript = async ({ turns, steps }: Run): Promise<void> => {
  let log = memoryLog()
  const calls = { n: 0 }
  let agent = open(log, turns, calls)
  const logs: LogStore[] = [log]
  const sent: Sent[] = []
  const pending: Promise<unknown>[] = []
  let n = 0
  const tolerate = (promise: Promise<unknown>) => pending.push(promise.catch(() => undefined))
  for (const step of steps) {
    const text = `m${n++}`
    const status = agent.state.status
    switch (step.kind) {
      case 'reply': {
        if (status === 'running') break
        const whilePaused = status === 'paused' ? step.whilePaused : 'refuse'
        if (status === 'paused' && whilePaused === 'refuse') break
        const before = agent.log.length
        tolerate(agent.reply(text, { whilePaused }))
        const event = agent.log.slice(before).find((e) => (e.type === 'USER_MESSAGE' || e.type === 'MESSAGE_QUEUED') && textOf(e.msg) === text)
        // A message that interrupts the paused reply starts first: it is a reply, not a queued message.
        if (event && 'msg' in event) sent.push({ id: event.msg.id, text, kind: whilePaused === 'queue' ? 'queue' : 'reply' })
        break
      }
      case 'steer':
        sent.push({ ...(await agent.steer(text)), text, kind: status === 'idle' ? 'reply' : 'steer' })
        break
      case 'queue':
        sent.push({ ...(await agent.queue(text)), text, kind: 'queue' })
        break
      case 'unqueue': {
        const queue = agent.state.queue
        if (queue.length) await agent.unqueue(queue[step.pick % queue.length].id)
        break
      }
      case 'stop':
        tolerate(agent.interrupt({ when: step.when, keepQueue: step.keepQueue }))
        break
      case 'answer': {
        const call = agent.state.waiting_for[0]
        if (call) tolerate(step.approve ? agent.approve(call.id) : agent.deny(call.id))
        break
      }
      case 'crash': {
        // The process dies here: the next owner opens what was acknowledged; the old agent is dropped.
        const copy = memoryLog(JSON.parse(JSON.stringify(agent.log)) as AgentEvent[])
        const known = new Set(copy.events.flatMap((e) => ('msg' in e ? [e.msg.id] : [])))
        sent.splice(0, sent.length, ...sent.filter((s) => known.has(s.id)))
        const old = agent
        log = copy
        logs.push(log)
        agent = open(log, turns, calls)
        tolerate(old.close())
        break
      }
      case 'wait':
        await sleep(step.ms)
    }
  }
  // Settle: answer what waits (interrupting it), let the queue drain.
  for (let rounds = 0; rounds < 400; rounds++) {
    const { status, queue } = agent.state
    if (status === 'idle' && queue.length === 0) break
    if (status === 'paused') await agent.interrupt({ keepQueue: true })
    await sleep(2)
  }
  await Promise.all(pending)
  await agent.close()
  check(logs.at(-1)!.events, sent, agent)
  for (const each of logs) {
    const events = JSON.parse(JSON.stringify(each.events)) as AgentEvent[]
    const { violations } = checkLog(events)
    if (violations.length) throw new Error(`checkLog: ${violations.map((v) => `#${v.seq} ${v.message}`).join('; ')}`)
    replay(events, undefined, { strict: true })
  }
}

const check = (events: readonly AgentEvent[], sent: Sent[], agent: Agent): void => {
  const state = replay(events)
  if (state.status !== 'idle' || state.queue.length || state.steers.length) throw new Error(`not settled: ${state.status}, queue ${state.queue.length}, steers ${state.steers.length}`)
  const inContext = state.context.filter((m) => m.role === 'user').map((m) => m.id)
  const returned = events.flatMap((e) => (e.type === 'QUEUE_RETURNED' ? e.returned.map((r) => r.id) : e.type === 'MESSAGE_UNQUEUED' ? [e.msg_id] : []))
  for (const { id, text } of sent) {
    const times = inContext.filter((c) => c === id).length + returned.filter((r) => r === id).length
    if (times !== 1) throw new Error(`message ${text} (${id}) is in the context ${inContext.filter((c) => c === id).length} times and taken back ${returned.filter((r) => r === id).length} times`)
  }
  const starts = events.filter((e) => e.type === 'USER_MESSAGE').map((e) => e.type === 'USER_MESSAGE' && e.msg.id)
  if (new Set(starts).size !== starts.length) throw new Error('a message started twice')
  for (const kind of ['steer', 'queue'] as const) {
    const acknowledged = sent.filter((s) => s.kind === kind && inContext.includes(s.id)).map((s) => s.id)
    const order = inContext.filter((id) => acknowledged.includes(id))
    if (JSON.stringify(order) !== JSON.stringify(acknowledged)) throw new Error(`${kind} messages reached the context as ${order.join(',')}, acknowledged as ${acknowledged.join(',')}`)
  }
  if (JSON.stringify(agent.state.context) !== JSON.stringify(state.context)) throw new Error('the agent state is not the fold of its log')
}

property('random steers, queues, unqueues, answers, gentle and hard stops and crashes keep every log consistent and lose no message', 40, async (params) => {
  await fc.assert(fc.asyncProperty(fc.record({ turns: fc.array(turnArb, { minLength: 1, maxLength: 5 }), steps: fc.array(stepArb, { minLength: 1, maxLength: 16 }) }), runScript), params)
})

test.run()
