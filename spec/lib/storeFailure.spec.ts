// Issue 9, item 3: a log store whose `append` throws (ENOSPC, EFBIG, LOG_CONFLICT, INVALID_EVENT)
// in the middle of a streamed reply does not crash the process. The reply ends for its consumer
// with a coded error naming the failure (reply() rejects, replyStream throws after the events the
// log accepted), the state never runs ahead of the log, and the agent refuses further work with
// the same error instead of carrying on in a state its log cannot reproduce.
import { isDeepStrictEqual } from 'node:util'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { AgentError, memoryLog, replay, say, UserMsg, type AgentEvent, type LogStore } from '../../lib/index.js'
import { makeAgent } from '../helpers/fixtures.js'
import { watchCrashes, within } from '../helpers/hardening.js'

const test = suite('lib/store failure')

/** A memory log whose `append` throws `error` on the call numbered `failAt` (1-based) and after. */
const failingLog = (failAt: number, error: unknown): LogStore => {
  const inner = memoryLog()
  let calls = 0
  return { ...inner, get events() { return inner.events }, append(batch, options) {
    if (++calls >= failAt) throw error
    inner.append(batch, options)
  } }
}

const enospc = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' })

const cases: [string, unknown, string, RegExp][] = [
  ['ENOSPC', enospc, 'LOG_UNAVAILABLE', /ENOSPC: no space left on device/],
  ['EFBIG', Object.assign(new Error('EFBIG: file too large, write'), { code: 'EFBIG' }), 'LOG_UNAVAILABLE', /EFBIG/],
  ['LOG_CONFLICT', new AgentError('LOG_CONFLICT', 'another writer appended first'), 'LOG_CONFLICT', /another writer/],
  ['INVALID_EVENT', new AgentError('INVALID_EVENT', 'refusing to write an invalid event'), 'INVALID_EVENT', /invalid event/],
  ['a thrown Object.create(null)', Object.create(null), 'LOG_UNAVAILABLE', /cannot be printed/],
]

for (const [what, thrown, code, message] of cases) {
  test(`an append that throws ${what} mid-stream: reply() rejects with ${code}, the process survives`, async () => {
    const watch = watchCrashes()
    const log = failingLog(30, thrown)
    const { agent } = makeAgent([say('a long answer, streamed in many small pieces', 60)], [], { log })
    const error = await within(agent.reply(UserMsg({ content: 'go' }))).catch((e: unknown) => e)
    assert.instance(error, AgentError)
    assert.is((error as AgentError).code, code)
    assert.match((error as AgentError).message, message)
    assert.is(agent.failure, error, 'the agent reports itself broken')
    assert.is(agent.state.seq, log.events.length, 'the state is at the last event the log accepted')
    assert.is(log.events.length, 29)
    assert.ok(isDeepStrictEqual(replay(log.events), agent.state), 'replay(log) deep-equals the state')
    try {
      await agent.reply(UserMsg({ content: 'again' }))
      assert.unreachable('a broken agent accepted more work')
    } catch (later) {
      assert.is(later, error, 'later input is refused with the same failure')
    }
    await agent.close()
    assert.equal(await watch.stop(), [])
  })
}

test('replyStream yields the events the log accepted, then throws the failure', async () => {
  const watch = watchCrashes()
  const log = failingLog(10, enospc)
  const { agent } = makeAgent([say('many pieces of text', 19)], [], { log })
  const seen: AgentEvent[] = []
  let thrown: unknown
  try {
    for await (const event of agent.replyStream(UserMsg({ content: 'go' }))) seen.push(event)
  } catch (error) {
    thrown = error
  }
  assert.instance(thrown, AgentError)
  assert.is((thrown as AgentError).code, 'LOG_UNAVAILABLE')
  assert.equal(seen.map((e) => e.id), log.events.filter((e) => e.type !== 'USER_MESSAGE').map((e) => e.id), 'exactly the accepted output events were yielded')
  assert.equal(await watch.stop(), [])
})

test('reply$ errors with the failure; dispatch throws it', async () => {
  const log = failingLog(5, enospc)
  const { agent } = makeAgent([say('pieces of text', 10)], [], { log })
  const error = await within(new Promise((resolve) => agent.reply$(UserMsg({ content: 'go' })).subscribe({ error: resolve, complete: () => resolve(null) })))
  assert.is((error as AgentError).code, 'LOG_UNAVAILABLE')
  assert.throws(() => agent.dispatch(UserMsg({ content: 'more' })), (e: AgentError) => e === error)
})

test('an abort whose closing events the log refuses does not throw from the abort listener', async () => {
  const watch = watchCrashes()
  const inner = memoryLog()
  const log: LogStore = { ...inner, get events() { return inner.events }, append(batch, options) {
    if (batch[0].type === 'INTERRUPT_REQUESTED') throw enospc
    inner.append(batch, options)
  } }
  const { agent } = makeAgent([say('pieces of text', 10)], [], { log, modelOptions: { chunkDelayMs: 1 } })
  const controller = new AbortController()
  let thrown: unknown
  try {
    for await (const event of agent.replyStream(UserMsg({ content: 'go' }), { signal: controller.signal }))
      if (event.type === 'TEXT_BLOCK_START') controller.abort()
  } catch (error) {
    thrown = error
  }
  assert.is((thrown as AgentError).code, 'LOG_UNAVAILABLE', 'the consumer gets the failure')
  assert.equal(await watch.stop(), [], 'nothing escaped from the abort listener')
})

test('a failing append on the first event refuses the input itself', async () => {
  const log = failingLog(1, enospc)
  const { agent } = makeAgent([say('hi')], [], { log })
  const error = await agent.reply(UserMsg({ content: 'go' })).catch((e: unknown) => e)
  assert.is((error as AgentError).code, 'LOG_UNAVAILABLE')
  assert.is(agent.state.seq, 0)
})

test.run()
