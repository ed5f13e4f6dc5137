// The checks a log is read with: the cheap per-line event check gives zod's verdict on real
// events and on every kind of damage to them; checkLog passes the logs the agent writes and
// names the event that breaks each invariant of REFERENCE.md section 5.
import fc from 'fast-check'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { AgentEventSchema, memoryLog, type AgentEvent } from '../../lib/index.js'
import { checkEvent, knownTypes } from '../../lib/stores/file/check.js'
import { checkLog } from '../../lib/core/logCheck.js'
import { runEveryEnding } from './helpers/agents.js'

const test = suite('log/check')

let events: AgentEvent[] = []
test.before(async () => {
  events = JSON.parse(JSON.stringify((await runEveryEnding(memoryLog())).log))
})

const agrees = (value: unknown, what: string) => {
  const zod = AgentEventSchema.safeParse(value).success
  const fast = checkEvent(value) === null
  assert.is(fast, zod, `${what}: the cheap check says ${fast ? 'valid' : checkEvent(value)}, zod says ${zod ? 'valid' : 'invalid'}`)
}

test('the cheap check accepts every event an agent writes', () => {
  assert.ok(events.length > 90)
  for (const e of events) assert.is(checkEvent(e), null, e.type)
})

test('the cheap check agrees with zod on every field of every event removed, retyped, emptied or added to', () => {
  const damages: [string, (v: unknown) => unknown][] = [
    ['removed', () => undefined], ['null', () => null], ['a number', () => 1], ['a fraction', () => 1.5], ['an empty string', () => ''],
    ['a string', () => 'x'], ['an array', () => []], ['an object', () => ({})], ['true', () => true],
  ]
  let checked = 0
  for (const e of events) {
    for (const key of Object.keys(e)) {
      for (const [name, damage] of damages) {
        const copy: Record<string, unknown> = { ...e }
        const value = damage(copy[key])
        if (value === undefined) delete copy[key]
        else copy[key] = value
        agrees(copy, `${e.type}.${key} ${name}`)
        checked++
      }
    }
    agrees({ ...e, extra: 1 }, `${e.type} with an extra field`)
  }
  assert.ok(checked > 5000)
})

test('the cheap check agrees with zod on random objects of known event types', () => {
  const types = [...knownTypes]
  const field = fc.oneof(fc.string(), fc.integer(), fc.double(), fc.constant(null), fc.boolean(), fc.constantFrom('completed', 'success', 'error', 'assistant'), fc.dictionary(fc.string(), fc.jsonValue()))
  const keys = ['id', 'created_at', 'metadata', 'reply_id', 'block_id', 'tool_call_id', 'delta', 'session_id', 'name', 'role', 'finished_reason', 'error', 'state', 'model_name', 'input_tokens', 'output_tokens', 'cache_input_tokens', 'cache_creation_input_tokens', 'media_type', 'data', 'url', 'tool_call_name']
  fc.assert(fc.property(fc.constantFrom(...types), fc.dictionary(fc.constantFrom(...keys), field), (type, fields) => {
    const value = { ...fields, type }
    return (checkEvent(value) === null) === AgentEventSchema.safeParse(value).success
  }), { numRuns: 1000 })
  for (const e of events) agrees({ ...e }, e.type)
})

test('checkLog finds nothing wrong in the logs the agent writes', () => {
  const { violations, notes, state } = checkLog(events)
  assert.equal(violations, [])
  assert.is(notes.length, 1, 'the paused reply is noted')
  assert.is(state.status, 'paused')
})

const restamp = (list: AgentEvent[]) => list.map((e, i) => ({ ...e, metadata: { ...e.metadata, seq: i + 1 } }) as AgentEvent)
const at = (type: string, from = 0) => events.findIndex((e, i) => i >= from && e.type === type)
const firstViolation = (list: AgentEvent[]) => checkLog(restamp(list)).violations[0]

test('checkLog names the event that breaks each invariant', () => {
  const firstEnd = at('REPLY_END')
  const dropped = events.filter((e) => !(e.type.startsWith('TOOL_RESULT_') && 'tool_call_id' in e && e.tool_call_id === 'e1'))
  const one = firstViolation(dropped)
  assert.is(one.seq, firstEnd + 1 - 5)
  assert.match(one.message, 'tool call e1 (echo) has 0 results after the reply ended (1)')

  const twice = [...events.slice(0, firstEnd + 1), events[firstEnd], ...events.slice(firstEnd + 1)]
  assert.equal(firstViolation(twice), { seq: firstEnd + 2, message: `a second REPLY_END for reply ${(events[firstEnd] as { reply_id: string }).reply_id} (2)` })

  const ask = at('REQUIRE_USER_CONFIRM')
  const endWhilePaused = [...events.slice(0, ask + 1), events[firstEnd], ...events.slice(ask + 1)]
  assert.match(firstViolation(endWhilePaused).message, 'REPLY_END for reply')

  const stamped = events.map((e, i) => (i === 10 ? { ...e, metadata: { ...e.metadata, seq: 99 } } : e)) as AgentEvent[]
  assert.equal(checkLog(stamped).violations[0], { seq: 11, message: `${events[10].type} is stamped seq 99 at position 11 (3: the log is not the one the store wrote)` })

  const interrupt = at('INTERRUPT_REQUESTED')
  const modelAfter = [...events.slice(0, interrupt + 1), { ...events[2], id: 'late-call' }, ...events.slice(interrupt + 1)]
  assert.match(firstViolation(modelAfter).message, 'a model call starts after the interrupt')

  const message = events[0]
  const messageWhilePaused = [...events.slice(0, ask + 1), { ...message, id: 'm2' }, ...events.slice(ask + 1)]
  const five = firstViolation(messageWhilePaused)
  assert.is(five.seq, ask + 2)
  assert.match(five.message, 'USER_MESSAGE was recorded but must be refused (5)')

  const usageEnd = events.findIndex((e) => e.type === 'MODEL_CALL_END' && e.input_tokens > 0)
  const lost = events.map((e, i) => (i === usageEnd ? { ...e, input_tokens: 0 } : e)) as AgentEvent[]
  assert.equal(checkLog(lost).violations, [{ seq: usageEnd + 1, message: 'MODEL_CALL_END reports less input_tokens than the call had recorded (6: usage is lost)' }])
})

test.run()
