// fileLog as a LogStore: the format on disk (version marker, one JSON event per line, mode 0600),
// optimistic concurrency (expectedSeq, and a file changed behind its back), closing, follow, and
// when each durability mode fsyncs relative to the agent publishing the event.
import fs from 'node:fs'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { AgentError, createEvent, counterClock } from '../../lib/index.js'
import { fileLog, type Durability } from '../../lib/stores/file/index.js'
import { echoAgent } from './helpers/agents.js'
import { lines, tempLog } from './helpers/files.js'

const test = suite('log/fileLog')

const throwsCode = (fn: () => unknown, code: string, what: string) => {
  try {
    fn()
  } catch (error) {
    assert.instance(error, AgentError, what)
    assert.is((error as AgentError).code, code, what)
    return error as AgentError
  }
  return assert.unreachable(`${what}: expected AgentError ${code}, nothing was thrown`) as never
}

test('a new log is a version marker then one JSON event per line, readable by the owner only', async () => {
  const file = tempLog()
  const agent = await echoAgent(fileLog(file))
  await agent.close()
  const text = lines(file)
  assert.is(text[0], '{"agentlog":1}')
  assert.is(text.at(-1), '', 'the file ends with a newline')
  assert.equal(text.slice(1, -1).map((l) => JSON.parse(l)), JSON.parse(JSON.stringify(agent.log)))
  assert.is(fs.statSync(file).mode & 0o777, 0o600)
  assert.not.ok(fs.existsSync(`${file}.lock`), 'close releases the lock')
})

test('reopening carries on appending after the events already there', async () => {
  const file = tempLog()
  const first = await echoAgent(fileLog(file))
  const before = first.log.length
  await first.close()
  const second = await echoAgent(fileLog(file))
  assert.ok(second.log.length > before)
  assert.equal(second.log.map((e) => e.metadata.seq), second.log.map((_, i) => i + 1), 'seq stamps run on without a gap')
  await second.close()
  assert.is(lines(file).length, second.log.length + 2)
})

test('append refuses a stale expectedSeq (LOG_CONFLICT) and leaves the file as it was', async () => {
  const file = tempLog()
  const log = fileLog(file)
  const event = createEvent(counterClock('x'), 'CUSTOM', { name: 'note', value: {} })
  log.append([event], { expectedSeq: 0 })
  const size = fs.statSync(file).size
  const error = throwsCode(() => log.append([event], { expectedSeq: 0 }), 'LOG_CONFLICT', 'a second writer at seq 0')
  assert.match(error.message, /holds 1/)
  assert.is(fs.statSync(file).size, size)
  await log.close()
})

test('append refuses to go on when the file changed on disk behind the lock', async () => {
  const file = tempLog()
  const log = fileLog(file)
  const clock = counterClock('x')
  log.append([createEvent(clock, 'CUSTOM', { name: 'a', value: {} })], { expectedSeq: 0 })
  fs.appendFileSync(file, `${JSON.stringify(createEvent(clock, 'CUSTOM', { name: 'intruder', value: {} }))}\n`)
  throwsCode(() => log.append([createEvent(clock, 'CUSTOM', { name: 'b', value: {} })], { expectedSeq: 1 }), 'LOG_CONFLICT', 'an unlocked writer appended')
  await log.close()
})

test('append refuses an invalid event and writes nothing', async () => {
  const file = tempLog()
  const log = fileLog(file)
  const size = fs.statSync(file).size
  throwsCode(() => log.append([{ type: 'NOPE' } as never], { expectedSeq: 0 }), 'INVALID_EVENT', 'an unknown type')
  assert.is(fs.statSync(file).size, size)
  assert.is(log.events.length, 0)
  await log.close()
})

test('after close, append throws CLOSED and the log can be opened again', async () => {
  const file = tempLog()
  const log = fileLog(file)
  await log.close()
  throwsCode(() => log.append([], { expectedSeq: 0 }), 'CLOSED', 'append after close')
  await fileLog(file).close()
})

test('follow replays the events from fromSeq, then every new one', async () => {
  const file = tempLog()
  const log = fileLog(file)
  const clock = counterClock('f')
  log.append([createEvent(clock, 'CUSTOM', { name: 'one', value: {} }), createEvent(clock, 'CUSTOM', { name: 'two', value: {} })], { expectedSeq: 0 })
  const seen: string[] = []
  const sub = log.follow({ fromSeq: 1 }).subscribe((e) => e.type === 'CUSTOM' && seen.push(e.name))
  log.append([createEvent(clock, 'CUSTOM', { name: 'three', value: {} })], { expectedSeq: 2 })
  sub.unsubscribe()
  assert.equal(seen, ['two', 'three'])
  await log.close()
})

test('bad options are refused with INVALID_OPTION', () => {
  throwsCode(() => fileLog(tempLog(), { durability: 'sometimes' as Durability }), 'INVALID_OPTION', 'unknown durability')
  throwsCode(() => fileLog(tempLog(), { snapshots: { every: 0 } }), 'INVALID_OPTION', 'snapshots every 0')
  throwsCode(() => fileLog(''), 'INVALID_OPTION', 'empty path')
})

/** Runs two replies, recording for each event how many fdatasync calls had happened when it was published. */
const syncsAtPublish = async (durability: Durability) => {
  const { fdatasyncSync, fsyncSync } = fs
  let syncs = 0
  let fsyncs = 0
  fs.fdatasyncSync = (fd) => void (syncs++, fdatasyncSync(fd))
  fs.fsyncSync = (fd) => void (fsyncs++, fsyncSync(fd))
  try {
    const seen: { type: string; syncs: number }[] = []
    const agent = await echoAgent(fileLog(tempLog(), { durability }), 2, (a) => a.events$.subscribe((e) => seen.push({ type: e.type, syncs })))
    const before = fsyncs
    await agent.close()
    return { seen, closeFsyncs: fsyncs - before }
  } finally {
    Object.assign(fs, { fdatasyncSync, fsyncSync })
  }
}

test("durability 'always' fsyncs every event inside append, before the agent publishes it", async () => {
  const { seen, closeFsyncs } = await syncsAtPublish('always')
  assert.ok(seen.length > 20)
  assert.equal(seen.map((s) => s.syncs), seen.map((_, i) => i + 1))
  assert.is(closeFsyncs, 1, 'close fsyncs')
})

test("durability 'reply' fsyncs at each REPLY_END and pause, before publishing it, and not on other events", async () => {
  const { seen } = await syncsAtPublish('reply')
  let points = 0
  for (const s of seen) {
    if (['REPLY_END', 'REQUIRE_USER_CONFIRM', 'REQUIRE_EXTERNAL_EXECUTION'].includes(s.type)) points++
    assert.is(s.syncs, points, `syncs when ${s.type} is published`)
  }
  assert.is(points, 2)
})

test("durability 'none' leaves syncing to the OS until close", async () => {
  const { seen, closeFsyncs } = await syncsAtPublish('none')
  assert.ok(seen.every((s) => s.syncs === 0))
  assert.is(closeFsyncs, 1, 'close still fsyncs')
})

test.run()
