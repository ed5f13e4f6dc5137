// Acknowledged means durable, on a log that commits after append returns: a reply's REPLY_END and
// its pause reach the consumer only once flush() says every event before them is committed, and
// agent.flush() waits for it; a failed commit ends the reply with the log's coded error. The log
// here is a memory log whose commits the spec releases by hand.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { AgentError, createAgent, memoryLog, UserMsg, type LogStore } from '../../lib/index.js'
import { sessionModel, sessionTools } from '../helpers/sessionModel.js'

const test = suite('lib/commitGate')

/** A memory log that "commits" only when the spec says so, and can fail like a lost database. */
const manualLog = () => {
  const inner = memoryLog()
  let committed = 0
  let waiting: { upTo: number; resolve: () => void; reject: (e: Error) => void }[] = []
  let failure: Error | null = null
  const listeners = new Set<(e: Error) => void>()
  const log: LogStore = {
    get events() { return inner.events },
    append(batch, position) {
      if (failure) throw failure
      inner.append(batch, position)
    },
    read: (o) => inner.read(o),
    follow: (o) => inner.follow(o),
    close: () => inner.close(),
    flush() {
      if (failure) return Promise.reject(failure)
      const upTo = inner.events.length
      if (committed >= upTo) return Promise.resolve()
      return new Promise((resolve, reject) => waiting.push({ upTo, resolve, reject }))
    },
    onFailure(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
  }
  return {
    log,
    commit() {
      committed = inner.events.length
      const ready = waiting.filter((w) => w.upTo <= committed)
      waiting = waiting.filter((w) => w.upTo > committed)
      for (const w of ready) w.resolve()
    },
    fail(error: Error) {
      failure = error
      for (const w of waiting) w.reject(error)
      waiting = []
      for (const l of listeners) l(error)
    },
    get committed() { return committed },
  }
}

const tick = () => new Promise((r) => setTimeout(r, 5))

test('REPLY_END reaches the consumer only after the commit; agent.flush() waits for it', async () => {
  const m = manualLog()
  const agent = createAgent({ name: 'Friday', model: sessionModel(1), tools: sessionTools(), log: m.log })
  const seen: string[] = []
  const done = (async () => {
    for await (const e of agent.replyStream(UserMsg({ content: 'hello' }))) seen.push(e.type)
  })()
  let flushed = false
  await tick()
  assert.is(agent.state.status, 'idle', 'the reply ended in memory')
  assert.ok(!seen.includes('REPLY_END'), 'but its end is held back')
  const flushing = agent.flush().then(() => (flushed = true))
  await tick()
  assert.not.ok(flushed, 'flush waits for the commit')
  m.commit()
  await done
  await flushing
  assert.is(seen.at(-1), 'REPLY_END')
  assert.ok(flushed)
})

test('a pause is held back until committed too', async () => {
  const m = manualLog()
  const agent = createAgent({ name: 'Friday', model: sessionModel(1), tools: sessionTools(), log: m.log })
  let ended = false
  const seen: string[] = []
  const done = (async () => {
    for await (const e of agent.replyStream(UserMsg({ content: 'ask /tmp/a' }))) seen.push(e.type)
    ended = true
  })()
  await tick()
  assert.is(agent.state.status, 'paused')
  assert.not.ok(seen.includes('REQUIRE_USER_CONFIRM'))
  assert.not.ok(ended)
  m.commit()
  await done
  assert.is(seen.at(-1), 'REQUIRE_USER_CONFIRM')
})

test('a failed commit ends the reply with the coded error, never showing its end as stored', async () => {
  const m = manualLog()
  const agent = createAgent({ name: 'Friday', model: sessionModel(1), tools: sessionTools(), log: m.log })
  const seen: string[] = []
  const reply = (async () => {
    for await (const e of agent.replyStream(UserMsg({ content: 'stream 50' }))) seen.push(e.type)
  })()
  await tick()
  m.fail(new AgentError('LOG_UNAVAILABLE', 'The database is gone.'))
  try {
    await reply
    assert.unreachable('the reply must reject')
  } catch (error) {
    assert.is((error as AgentError).code, 'LOG_UNAVAILABLE')
  }
  assert.not.ok(seen.includes('REPLY_END'))
  await agent.flush().then(() => assert.unreachable('flush rejects'), (e: AgentError) => assert.is(e.code, 'LOG_UNAVAILABLE'))
  const length = m.log.events.length
  await tick()
  await tick()
  assert.is(m.log.events.length, length, 'the agent stopped writing (its model call was stopped)')
})

test('a memory log pays nothing: the reply ends synchronously with its last event', async () => {
  const agent = createAgent({ name: 'Friday', model: sessionModel(1), tools: sessionTools() })
  assert.not.ok(agent.commitsAfterAppend)
  const msg = await agent.reply(UserMsg({ content: 'hi' }))
  assert.is(msg.finished_reason, 'completed')
  await agent.flush()
})

test.run()
