// Issue 9, items 4 and 10 (tools): whatever a tool throws (an Error, a string, Object.create(null))
// and whatever odd value it returns (a number, null, an unknown state, metadata JSON cannot carry
// such as a Date, a stream of non-strings) becomes that call's `error` result; the reply goes on,
// the log holds only valid events, and replay(log) equals the live state.
import { Observable, of, throwError } from 'rxjs'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { z } from 'zod'
import { callTool, outputText, defineTool, say, UserMsg, type ToolResultBlock } from '../../lib/index.js'
import { makeAgent } from '../helpers/fixtures.js'
import { assertAgentHolds, watchCrashes, within } from '../helpers/hardening.js'

const test = suite('effects/runTool')

const runWith = async (execute: () => unknown) => {
  const watch = watchCrashes()
  const tool = defineTool({ name: 'odd', description: 'Misbehaves', input: z.object({}), execute: execute as never })
  const { agent } = makeAgent([[...callTool('c1', 'odd', {})], [...say('Noted.')], [...say('Hello again.')]], [tool])
  const msg = await within(agent.reply(UserMsg({ content: 'go' })))
  assert.is(msg.finished_reason, 'completed')
  const result = agent.state.context[1].content.find((b): b is ToolResultBlock => b.type === 'tool_result')!
  assert.is((await within(agent.reply(UserMsg({ content: 'hi' })))).finished_reason, 'completed', 'the agent stays usable')
  assertAgentHolds(agent)
  assert.equal(await watch.stop(), [])
  return result
}

const errorCases: [string, () => unknown, RegExp][] = [
  ['throws Object.create(null)', () => { throw Object.create(null) }, /failed: a thrown Object that cannot be printed/],
  ['throws a string', () => { throw 'disk on fire' }, /failed: disk on fire/],
  ['rejects with undefined', () => Promise.reject(undefined), /failed: undefined/],
  ['returns a number', () => 42, /returned number 42/],
  ['returns null', () => null, /returned null/],
  ['returns undefined', () => undefined, /returned undefined/],
  ['returns an unknown state', () => ({ output: 'ok', state: 'weird' }), /invalid result at state/],
  ['returns metadata holding a Date', () => ({ output: 'ok', metadata: { at: new Date(0) } }), /metadata cannot be recorded: metadata\.at is .*Date/],
  ['returns metadata holding NaN', () => ({ output: 'ok', metadata: { score: Number.NaN } }), /metadata\.score is NaN/],
  ['returns output that is neither text nor blocks', () => ({ output: 7 }), /invalid result at output/],
  ['streams a non-string chunk', () => (async function* () { yield 'part '; yield 3 })(), /yielded number 3/],
  ['emits a non-string chunk from an Observable', () => of('part ', 3), /yielded number 3/],
  ['emits an error from an Observable', () => throwError(() => new Error('stream broke')), /failed: stream broke/],
]

for (const [what, execute, message] of errorCases) {
  test(`a tool that ${what} gets an error result`, async () => {
    const result = await runWith(execute)
    assert.is(result.state, 'error')
    assert.match(typeof result.output === 'string' ? result.output : JSON.stringify(result.output), message)
  })
}

test('a valid result object with JSON metadata is kept as it is', async () => {
  const result = await runWith(() => ({ output: 'ok', state: 'success', metadata: { n: 1, tags: ['a'], nested: { x: null } } }))
  assert.equal([result.state, outputText(result.output), result.metadata], ['success', 'ok', { n: 1, tags: ['a'], nested: { x: null } }])
})

test('an Observable output is recorded chunk by chunk, and a result object last ends the call with its state', async () => {
  const result = await runWith(() => new Observable((subscriber) => {
    subscriber.next('one ')
    setTimeout(() => {
      subscriber.next('two')
      subscriber.next({ output: ' three', state: 'interrupted', metadata: { n: 1 } })
      subscriber.next('ignored')
    }, 1)
  }))
  assert.equal([result.state, outputText(result.output), result.metadata], ['interrupted', 'one two three', { n: 1 }])
})

test.run()
