// The page's timeline rows, built from a real agent's log: deltas of one block coalesce into one
// row holding their first and last seq, everything else is a row of its own, and the rows cover
// every seq of the log exactly once, in order.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { UserMsg, callTool, say, usage, type AgentEvent } from '../../lib/index.js'
import { Timeline } from '../../web/timeline.js'
import { collect, makeAgent, probe, slowTool } from '../helpers/fixtures.js'

const test = suite('web/timeline')

const rowsOf = (events: readonly AgentEvent[]) => {
  const timeline = new Timeline()
  events.forEach((e) => timeline.add(e, e.metadata.seq as number))
  return timeline.rows
}

test('a streamed answer is one row per event, its 5 text deltas one row of count 5', async () => {
  const { agent } = makeAgent([[...say('Hello there, friend!', 5), usage(3, 5)]], [])
  await collect(agent.replyStream(UserMsg({ content: 'hi' })))
  const rows = rowsOf(agent.log)
  const types = agent.log.map((e) => e.type)
  assert.is(types.filter((t) => t === 'TEXT_BLOCK_DELTA').length, 5)
  assert.equal(rows.map((r) => r.type), types.filter((t, i) => !(t === 'TEXT_BLOCK_DELTA' && types[i - 1] === t)))
  const text = rows.find((r) => r.type === 'TEXT_BLOCK_DELTA')!
  assert.is(text.count, 5)
  assert.is(text.detail, 'Hello there, friend!')
  assert.is(text.last_seq - text.seq, 4)
  assert.is(rows[0].detail, 'hi')
})

test('rows cover every seq once and in order, tool-call and result deltas coalesced per call', async () => {
  const p = probe()
  const { agent } = makeAgent([
    [...say('Checking.', 2), ...callTool('call-1', 'slow', { x: 'a' }, 4), usage(1, 1)],
    [...say('Done.', 3), usage(1, 1)],
  ], [slowTool(p, { ms: 1 })])
  await collect(agent.replyStream(UserMsg({ content: 'go' })))
  const rows = rowsOf(agent.log)
  let next = 1
  for (const row of rows) {
    assert.is(row.seq, next)
    assert.ok(row.last_seq >= row.seq)
    assert.is(row.count, row.last_seq - row.seq + 1)
    next = row.last_seq + 1
  }
  assert.is(next, agent.log.length + 1)
  const args = rows.filter((r) => r.type === 'TOOL_CALL_DELTA')
  assert.is(args.length, 1)
  assert.is(args[0].count, agent.log.filter((e) => e.type === 'TOOL_CALL_DELTA').length)
  assert.ok(args[0].count > 1)
  assert.is(args[0].detail, '{"x":"a"}')
  assert.is(rows.find((r) => r.type === 'TOOL_CALL_START')!.detail, 'slow')
  assert.is(rows.find((r) => r.type === 'TOOL_RESULT_END')!.detail, 'success')
})

test('adding a delta replaces only the last row object (earlier rows keep their identity)', async () => {
  const { agent } = makeAgent([[...say('abc', 3), usage(1, 1)]], [])
  await collect(agent.replyStream(UserMsg({ content: 'x' })))
  const timeline = new Timeline()
  const deltas = agent.log.filter((e) => e.type === 'TEXT_BLOCK_DELTA')
  const upTo = agent.log.indexOf(deltas[1])
  agent.log.slice(0, upTo).forEach((e) => timeline.add(e, e.metadata.seq as number))
  const before = [...timeline.rows]
  timeline.add(deltas[1], deltas[1].metadata.seq as number)
  assert.is(timeline.rows.length, before.length)
  before.slice(0, -1).forEach((row, i) => assert.is(timeline.rows[i], row))
  assert.is.not(timeline.rows[before.length - 1], before[before.length - 1])
  assert.is(timeline.rows[before.length - 1].count, 2)
})

test.run()
