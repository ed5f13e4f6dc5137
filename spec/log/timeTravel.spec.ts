// Time travel: stateAt(log, seq) equals the fold of the first seq events (also when it starts
// from a file log's snapshot); fork(log, seq) goes on from any point in a new session, closing a
// reply cut while running, leaving the old log untouched.
import fs from 'node:fs'
import { isDeepStrictEqual } from 'node:util'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { AgentError, memoryLog, outputText, replay, say, scriptedModel, UserConfirmResultEvent, UserMsg, type AgentEvent } from '../../lib/index.js'
import { fileLog } from '../../lib/stores/file/index.js'
import { readLogFile } from '../../lib/stores/file/read.js'
import { fork, stateAt } from '../../lib/timeTravel/index.js'
import { allTools, assertConsistent, runEveryEnding } from './helpers/agents.js'
import { tempLog } from './helpers/files.js'

const test = suite('log/time-travel')

const model = () => scriptedModel([say('From the fork.', 2)], { onExhausted: 'repeat-last' })

const code = (fn: () => unknown): string => {
  try {
    fn()
  } catch (error) {
    assert.instance(error, AgentError)
    return (error as AgentError).code
  }
  return 'nothing thrown'
}

test('stateAt(log, seq) is the fold of the first seq events, for every seq', async () => {
  const agent = await runEveryEnding(memoryLog())
  const events = JSON.parse(JSON.stringify(agent.log)) as AgentEvent[]
  for (let seq = 0; seq <= events.length; seq++) assert.ok(isDeepStrictEqual(stateAt(events, seq), replay(events.slice(0, seq))), `seq ${seq}`)
  assert.ok(isDeepStrictEqual(stateAt(events, events.length), agent.state), 'the last position is the agent state')
  assert.is(code(() => stateAt(events, events.length + 1)), 'INVALID_OPTION')
  assert.is(code(() => stateAt(events, -1)), 'INVALID_OPTION')
  assert.is(code(() => stateAt(events, 1.5)), 'INVALID_OPTION')
})

test('stateAt on a file log with a snapshot equals the fold before and after the snapshot', async () => {
  const file = tempLog()
  const first = await runEveryEnding(fileLog(file, { snapshots: true }))
  await first.interrupt()
  await first.close()
  const log = fileLog(file, { snapshots: true })
  const agent = await runEveryEnding(log)
  const events = readLogFile(file).events
  const snapshotSeq = log.snapshot()!.seq
  assert.ok(snapshotSeq > 0 && snapshotSeq < events.length)
  for (let seq = 0; seq <= events.length; seq++) assert.ok(isDeepStrictEqual(stateAt(log, seq), replay(events.slice(0, seq))), `seq ${seq}`)
  await agent.close()
})

test('fork inside a running reply: new session, the cut reply closed, old log untouched, next reply completes', async () => {
  const file = tempLog()
  const original = await runEveryEnding(fileLog(file))
  await original.close()
  const before = fs.readFileSync(file)
  const events = readLogFile(file).events
  const cut = events.findIndex((e) => e.type === 'TOOL_RESULT_START') + 1 // the first tool is running
  assert.is(replay(events.slice(0, cut)).status, 'running')

  const forked = fork(events, cut, { name: 'Friday', model: model(), tools: allTools() })
  assert.is.not(forked.session_id, original.session_id)
  assert.equal(forked.log.slice(0, cut), events.slice(0, cut), 'the fork starts with the old events')
  const marker = forked.log[cut]
  assert.ok(marker.type === 'CUSTOM' && marker.name === 'agentlog.fork' && marker.value.from_seq === cut && marker.value.from_session_id === original.session_id)
  const end = forked.log.at(-1)!
  assert.ok(end.type === 'REPLY_END' && end.finished_reason === 'interrupted', 'the cut reply is closed as on restore')
  assert.is(forked.state.status, 'idle')
  assertConsistent(forked, 'fork:')
  const msg = await forked.reply(UserMsg({ content: 'Go on from here.' }))
  assert.is(msg.finished_reason, 'completed')
  const start = forked.log.filter((e) => e.type === 'REPLY_START').at(-1)!
  assert.ok(start.type === 'REPLY_START' && start.session_id === forked.session_id, 'new replies carry the new session id')
  assertConsistent(forked, 'fork, after a reply:')
  assert.equal(fs.readFileSync(file), before, 'the old log is untouched')
})

test('fork at a pause can answer it differently: the original denied, the fork confirms', async () => {
  const original = await runEveryEnding(memoryLog())
  const asked = original.log.findIndex((e) => e.type === 'REQUIRE_USER_CONFIRM') + 1
  const target = tempLog()
  const forked = fork(original.log, asked, { name: 'Friday', model: model(), tools: allTools(), log: fileLog(target) })
  assert.is(forked.state.status, 'paused')
  const call = forked.state.waiting_for[0]
  await forked.reply(UserConfirmResultEvent({ reply_id: forked.state.reply_id!, confirm_results: [{ confirmed: true, tool_call: call }] }))
  const result = forked.state.context.at(-1)!.content.find((b) => b.type === 'tool_result')
  assert.ok(result?.type === 'tool_result' && result.state === 'success' && outputText(result.output) === 'deleted /etc/hosts')
  assertConsistent(forked, 'fork at a pause:')
  await forked.close()
  assert.equal(readLogFile(target).events, JSON.parse(JSON.stringify(forked.log)), 'the fork was written to its own file')
  const denied = original.state.context.find((m) => m.content.some((b) => b.type === 'tool_result' && b.state === 'denied'))
  assert.ok(denied, 'the original still holds its denial')
})

test('fork refuses a non-empty target log, the forked log itself, the same session id, or a bad seq', async () => {
  const original = await runEveryEnding(memoryLog())
  const options = { name: 'Friday', model: model(), tools: allTools() }
  const used = memoryLog(original.log.slice(0, 2))
  assert.is(code(() => fork(original.log, 3, { ...options, log: used })), 'INVALID_OPTION')
  const source = memoryLog(original.log)
  assert.is(code(() => fork(source, 3, { ...options, log: source })), 'INVALID_OPTION')
  assert.is(code(() => fork(original.log, 3, { ...options, session_id: original.session_id })), 'INVALID_OPTION')
  assert.is(code(() => fork(original.log, original.log.length + 1, options)), 'INVALID_OPTION')
})

test.run()
