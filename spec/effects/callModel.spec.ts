// Issue 9, items 4, 5, 6 and 10 (models): what a model streams is checked where it becomes events.
// A malformed chunk (non-string delta, usage that is no number, a call without a name, an unknown
// type, not an object) ends the reply with REPLY_END(error) naming it; a call without an id gets a
// generated one; fragments of several calls that alternate go to their own call; a call id a
// later model call of the same reply reuses is made unique; any thrown value ends the reply.
// In every case the log passes checkLog and strict replay, and folds back to the live state.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { z } from 'zod'
import { counterClock, outputText, createAgent, defineTool, ModelError, UserMsg, type ChatModel, type ToolCallBlock, type ToolResultBlock } from '../../lib/index.js'
import { assertAgentHolds, watchCrashes, within } from '../helpers/hardening.js'

const test = suite('effects/callModel')

/** A model that yields the given raw values per call (no type checks: it may send anything), or throws `fail`. */
const rawModel = (turns: { chunks: unknown[]; fail?: unknown }[]): ChatModel & { calls: number } => {
  const model = {
    name: 'raw', calls: 0,
    async *stream() {
      const turn = turns[model.calls++] ?? { chunks: [{ type: 'text', delta: 'fine' }] }
      for (const chunk of turn.chunks) yield chunk as never
      if ('fail' in turn) throw turn.fail
    },
  }
  return model
}

const echo = (seen: unknown[] = []) => defineTool({ name: 'echo', description: 'Echoes', input: z.object({ v: z.unknown() }).loose(), execute: (input) => { seen.push(input); return JSON.stringify(input) } })

const agentWith = (turns: { chunks: unknown[]; fail?: unknown }[], seen: unknown[] = []) =>
  createAgent({ name: 'A', model: rawModel(turns), tools: [echo(seen)], clock: counterClock('e') })

const failsWith = async (turns: { chunks: unknown[]; fail?: unknown }[], message: RegExp) => {
  const watch = watchCrashes()
  const agent = agentWith(turns)
  const error = await within(agent.reply(UserMsg({ content: 'go' }))).catch((e: unknown) => e)
  assert.instance(error, ModelError)
  assert.match((error as Error).message, message)
  const end = agent.log.at(-1)!
  assert.is(end.type === 'REPLY_END' && end.finished_reason, 'error')
  assert.is((await within(agent.reply(UserMsg({ content: 'again' })))).finished_reason, 'completed', 'the agent stays usable')
  assertAgentHolds(agent)
  assert.equal(await watch.stop(), [])
}

const malformed: [string, unknown[], RegExp][] = [
  ['a text delta that is a number', [{ type: 'text', delta: 5 }], /text chunk whose delta is number 5/],
  ['a text delta that is missing', [{ type: 'text' }], /text chunk whose delta is undefined/],
  ['a thinking delta that is an object', [{ type: 'thinking', delta: { t: 1 } }], /thinking chunk whose delta/],
  ['usage given as strings', [{ type: 'usage', input_tokens: '0', output_tokens: '12' }], /usage input_tokens is string "0"/],
  ['usage that is negative or fractional', [{ type: 'usage', input_tokens: 1.5, output_tokens: 2 }], /usage input_tokens is number 1.5/],
  ['a tool call without a name', [{ type: 'tool_call', id: 'c1', delta: '{}' }], /whose name is undefined/],
  ['a tool call with an empty name', [{ type: 'tool_call', id: 'c1', name: '', delta: '{}' }], /whose name is string ""/],
  ['a tool call whose id is a number', [{ type: 'tool_call', id: 7, name: 'echo', delta: '{}' }], /whose id is number 7/],
  ['a tool call delta that is a number', [{ type: 'tool_call', id: 'c1', name: 'echo', delta: 1 }], /delta is number 1/],
  ['a chunk of unknown type', [{ type: 'image', data: 'x' }], /unknown type string "image"/],
  ['a chunk that is null', [null], /null instead of a chunk object/],
  ['a chunk that is a string', ['hello'], /string "hello" instead of a chunk object/],
]

for (const [what, chunks, message] of malformed) {
  test(`${what} ends the reply with REPLY_END(error)`, () => failsWith([{ chunks: [{ type: 'text', delta: 'Let me see. ' }, ...chunks] }], message))
}

for (const [what, thrown, message] of [
  ['Object.create(null)', Object.create(null), /a thrown Object that cannot be printed/],
  ['a string', 'socket hang up', /socket hang up/],
  ['an error whose message getter throws', Object.defineProperty(new Error(), 'message', { get: () => { throw new Error('no') } }), /cannot be printed/],
] as [string, unknown, RegExp][]) {
  test(`a model that throws ${what} mid-stream ends the reply with REPLY_END(error)`, () => failsWith([{ chunks: [{ type: 'text', delta: 'Hi' }], fail: thrown }], message))
}

test('a tool call without an id gets a generated one; its later fragments continue it', async () => {
  const seen: unknown[] = []
  const agent = agentWith([{ chunks: [{ type: 'tool_call', name: 'echo', delta: '{"v":' }, { type: 'tool_call', id: '', name: 'echo', delta: '1}' }] }], seen)
  assert.is((await within(agent.reply(UserMsg({ content: 'go' })))).finished_reason, 'completed')
  const call = agent.state.context[1].content.find((b): b is ToolCallBlock => b.type === 'tool_call')!
  assert.ok(call.id.length > 0)
  assert.equal(seen, [{ v: 1 }])
  assertAgentHolds(agent)
})

test('fragments of two calls that alternate (a, b, a) each go to their own call', async () => {
  const seen: unknown[] = []
  const agent = agentWith([{ chunks: [
    { type: 'tool_call', id: 'a', name: 'echo', delta: '{"v":' },
    { type: 'tool_call', id: 'b', name: 'echo', delta: '{"v":"b"}' },
    { type: 'tool_call', id: 'a', name: 'echo', delta: '"a"}' },
    { type: 'text', delta: 'and' },
    { type: 'tool_call', id: 'b', name: 'echo', delta: '' },
  ] }], seen)
  assert.is((await within(agent.reply(UserMsg({ content: 'go' })))).finished_reason, 'completed')
  const calls = agent.state.context[1].content.filter((b): b is ToolCallBlock => b.type === 'tool_call')
  assert.equal(calls.map((c) => [c.id, c.input]), [['a', '{"v":"a"}'], ['b', '{"v":"b"}']])
  const types = agent.log.map((e) => e.type)
  assert.ok(types.lastIndexOf('TOOL_CALL_DELTA') < types.indexOf('TOOL_CALL_END'), 'no fragment after a call ended')
  assert.equal(seen, [{ v: 'a' }, { v: 'b' }])
  assertAgentHolds(agent)
})

test('a tool call id reused by a later model call of the reply is made unique; the log passes its own checks', async () => {
  const agent = agentWith([
    { chunks: [{ type: 'tool_call', id: 'call_0', name: 'echo', delta: '{"v":1}' }] },
    { chunks: [{ type: 'tool_call', id: 'call_0', name: 'echo', delta: '{"v":2}' }] },
    { chunks: [{ type: 'text', delta: 'done' }] },
  ])
  assert.is((await within(agent.reply(UserMsg({ content: 'go' })))).finished_reason, 'completed')
  const content = agent.state.context[1].content
  const calls = content.filter((b): b is ToolCallBlock => b.type === 'tool_call')
  const results = content.filter((b): b is ToolResultBlock => b.type === 'tool_result')
  assert.is(new Set(calls.map((c) => c.id)).size, 2, 'two distinct ids in the log')
  assert.equal(calls[0].id, 'call_0')
  assert.equal(results.map((r) => [r.id, outputText(r.output)]), calls.map((c, i) => [c.id, JSON.stringify({ v: i + 1 })]))
  assertAgentHolds(agent)
})

test.run()
