// Restoring an agent from a file log: a log cut at any position (a crash) opens as a consistent
// agent that goes on; a paused reply stays paused. Snapshots: snapshot plus tail equals the full
// fold, restore reads only the tail, and a damaged or stale snapshot is ignored and reported.
import crypto from 'node:crypto'
import fs from 'node:fs'
import { isDeepStrictEqual } from 'node:util'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createAgent, memoryLog, replay, say, scriptedModel, UserMsg, type AgentEvent } from '../../lib/index.js'
import { fileLog, type FileLogOptions } from '../../lib/stores/file/index.js'
import { MARKER, readLogFile } from '../../lib/stores/file/read.js'
import { snapshotPath } from '../../lib/stores/file/snapshot.js'
import { FOLD_VERSION } from '../../reducers/state.js'
import { allTools, assertConsistent, runEveryEnding } from './helpers/agents.js'
import { lines, tempLog } from './helpers/files.js'

const test = suite('log/restore')

const writeLog = (file: string, events: readonly AgentEvent[]) =>
  fs.writeFileSync(file, MARKER + events.map((e) => `${JSON.stringify(e)}\n`).join(''))

const open = (file: string, options: FileLogOptions = {}, tools = allTools()) => {
  const log = fileLog(file, options)
  return { log, agent: createAgent({ name: 'Friday', model: scriptedModel([say('Going on.', 2)], { onExhausted: 'repeat-last' }), tools, log }) }
}

const fullFold = (file: string) => replay(readLogFile(file).events)

test('a log cut after any event opens as a consistent agent whose next reply completes', async () => {
  const source = await runEveryEnding(memoryLog())
  const events = JSON.parse(JSON.stringify(source.log)) as AgentEvent[]
  let closedOnOpen = 0
  for (let cut = 0; cut <= events.length; cut++) {
    const file = tempLog()
    writeLog(file, events.slice(0, cut))
    const before = replay(events.slice(0, cut))
    const { agent } = open(file)
    if (before.status === 'running') {
      closedOnOpen++
      const end = agent.log.at(-1)!
      assert.ok(end.type === 'REPLY_END' && end.finished_reason === 'interrupted', `cut ${cut}: the running reply is closed as interrupted`)
    } else assert.is(agent.log.length, cut, `cut ${cut}: nothing is appended on open`)
    assert.is(agent.state.status, before.status === 'paused' ? 'paused' : 'idle', `cut ${cut}: a paused reply stays paused`)
    assertConsistent(agent, `cut ${cut}:`)
    if (agent.state.status === 'paused') await agent.interrupt()
    const msg = await agent.reply(UserMsg({ content: 'Go on.' }))
    assert.is(msg.finished_reason, 'completed', `cut ${cut}: the next reply completes`)
    assertConsistent(agent, `cut ${cut}, after the next reply:`)
    await agent.close()
  }
  assert.ok(closedOnOpen > 40, `most cuts land inside a running reply (${closedOnOpen})`)
})

test('snapshots are written at quiet points and at close, and snapshot plus tail equals the full fold', async () => {
  const file = tempLog()
  const log = fileLog(file, { snapshots: { every: 10 } })
  const agent = await runEveryEnding(log)
  const quiet = log.snapshot()
  assert.is(log.snapshotSeq, quiet.seq, 'the fold point moved with the last snapshot written')
  assert.ok(quiet.seq >= 10 && fs.existsSync(snapshotPath(file)), 'a snapshot was taken while running')
  assert.ok(['REPLY_END', 'REQUIRE_USER_CONFIRM', 'REQUIRE_EXTERNAL_EXECUTION'].includes(agent.log[quiet.seq - 1].type), 'at a reply end or a pause')
  assert.equal(quiet.state, replay(agent.log.slice(0, quiet.seq)))
  await agent.close()

  const reopened = open(file, { snapshots: true })
  assert.is(reopened.log.snapshotSeq, agent.log.length, 'close snapshots the whole log')
  assert.equal(reopened.log.recovered, [])
  await reopened.agent.interrupt()
  await reopened.agent.reply(UserMsg({ content: 'Something else.' }))
  await reopened.agent.close()

  const tail = open(file, { snapshots: { every: 1_000_000 } })
  assert.equal(tail.log.recovered, [])
  assert.ok(isDeepStrictEqual(tail.agent.state, fullFold(file)), 'snapshot + tail = the full fold')
  assert.ok(isDeepStrictEqual(tail.log.events, readLogFile(file).events))
  await tail.agent.close()
})

/** Opens the log and an agent on it, counting the JSON.parse calls that took. */
const parsesToOpen = (file: string, options: FileLogOptions) => {
  const tools = allTools()
  const parse = JSON.parse
  let calls = 0
  JSON.parse = (...args: Parameters<typeof parse>) => (calls++, parse(...args))
  try {
    const opened = open(file, options, tools)
    return { ...opened, calls }
  } finally {
    JSON.parse = parse
  }
}

test('a restore from a trusted snapshot reads and folds only the events after it', async () => {
  const file = tempLog()
  const first = open(file, { snapshots: true })
  await first.agent.reply(UserMsg({ content: 'Hello.' }))
  await first.agent.close()
  const second = open(file)
  await second.agent.reply(UserMsg({ content: 'Hello again.' }))
  await second.agent.reply(UserMsg({ content: 'And again.' }))
  await second.agent.close()
  const events = readLogFile(file).events
  const withSnapshot = parsesToOpen(file, { snapshots: true })
  const snapshotSeq = withSnapshot.log.snapshotSeq
  assert.equal(withSnapshot.log.recovered, [])
  assert.ok(snapshotSeq > 0 && snapshotSeq < events.length)
  assert.is(withSnapshot.calls, 2 + events.length - snapshotSeq, 'the snapshot header and state, then one parse per tail line')
  assert.ok(isDeepStrictEqual(withSnapshot.agent.state, replay(events)), 'snapshot + tail = the full fold')
  await withSnapshot.agent.close()
  fs.rmSync(snapshotPath(file))
  const without = parsesToOpen(file, { snapshots: false })
  assert.is(without.calls, 1 + events.length, 'without snapshots: the marker and every line')
  await without.agent.close()
})

const snapshotted = async () => {
  const file = tempLog()
  const { agent } = open(file, { snapshots: true })
  await agent.reply(UserMsg({ content: 'Hello.' }))
  await agent.close()
  return file
}

const reasonOnOpen = (file: string): string => {
  const { log, agent } = open(file, { snapshots: true })
  const ignored = log.recovered.filter((r) => r.kind === 'snapshot-ignored')
  assert.is(ignored.length, 1, 'the snapshot is ignored and reported once')
  assert.ok(isDeepStrictEqual(agent.state, fullFold(file)), 'the state is the full fold')
  void agent.close()
  return ignored[0].kind === 'snapshot-ignored' ? ignored[0].reason : ''
}

test('a damaged snapshot is ignored and reported, then replaced by a good one', async () => {
  const file = await snapshotted()
  const snap = fs.readFileSync(snapshotPath(file), 'utf8')
  fs.writeFileSync(snapshotPath(file), snap.replace('"Hello."', '"Hellp."'))
  assert.match(reasonOnOpen(file), 'damaged: the state does not match its checksum')
  const again = open(file, { snapshots: true })
  assert.equal(again.log.recovered, [], 'the next close wrote a good snapshot')
  await again.agent.close()
  fs.writeFileSync(snapshotPath(file), 'garbage')
  assert.match(reasonOnOpen(file), 'damaged: its header is not JSON')
})

test('a stale snapshot (made beyond the log, or from another log) is ignored and reported', async () => {
  const file = await snapshotted()
  const text = lines(file)
  fs.writeFileSync(file, `${text.slice(0, 4).join('\n')}\n`)
  assert.match(reasonOnOpen(file), /^stale: it was made at event \d+ \(byte \d+\) but the log has only \d+ bytes$/)

  const other = await snapshotted() // the same script: a log of the same size, other ids
  const mine = await snapshotted()
  fs.copyFileSync(other, mine)
  assert.match(reasonOnOpen(mine), /^stale: the log's first \d+ bytes are not the ones it was made from$/)
})

test('a snapshot written by code with another state shape is ignored', async () => {
  const file = await snapshotted()
  const [header, state] = lines(snapshotPath(file))
  const saved = JSON.parse(state) as { state: object }
  const changed = JSON.stringify({ ...saved, state: { ...saved.state, extra: 1 } })
  const sha = crypto.createHash('sha256').update(changed).digest('hex')
  fs.writeFileSync(snapshotPath(file), `${JSON.stringify({ ...JSON.parse(header), state_sha256: sha })}\n${changed}\n`)
  assert.match(reasonOnOpen(file), 'written by another agentlog version')
})

test('a snapshot saved by another fold version, or before fold versions, is ignored with that reason', async () => {
  const file = await snapshotted()
  const [header, state] = lines(snapshotPath(file))
  const saved = JSON.parse(state) as { fold: number; state: object }
  for (const [text, reason] of [[JSON.stringify(saved.state), 'without fold versions'], [JSON.stringify({ ...saved, fold: FOLD_VERSION - 1 }), `fold version ${FOLD_VERSION - 1}`]]) {
    const sha = crypto.createHash('sha256').update(text).digest('hex')
    fs.writeFileSync(snapshotPath(file), `${JSON.stringify({ ...JSON.parse(header), state_sha256: sha })}\n${text}\n`)
    assert.match(reasonOnOpen(file), reason)
  }
})

test.run()
