// Issue 9, items 7 and 8: after `close()`, a file log never reads through its closed descriptor
// (whose number the OS hands to the next file opened): `agent.log` still shows this agent's own
// events, or refuses with CLOSED when the path names another file now. And `close()` called from
// an `events$` subscriber waits for the interrupted reply to end before it releases the log.
import fs from 'node:fs'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { AgentError, createAgent, say, scriptedModel, UserMsg, type AgentEvent } from '../../lib/index.js'
import { fileLog, readLogFile } from '../../lib/node.js'
import { assertLogHolds, watchCrashes, within } from '../helpers/hardening.js'
import { tempLog } from './helpers/files.js'

const test = suite('log/closed')

const writeSession = async (path: string, text: string) => {
  const agent = createAgent({ name: 'A', model: scriptedModel([say(text), say(text)]), log: fileLog(path) })
  await agent.reply(UserMsg({ content: `say ${text}` }))
  await agent.close()
}

const texts = (events: readonly AgentEvent[]) => events.flatMap((e) => (e.type === 'TEXT_BLOCK_DELTA' ? [e.delta] : []))

test('agent.log after close() shows the agent\'s own events, even when another log reuses the descriptor', async () => {
  const mine = tempLog()
  await writeSession(mine, 'mine')
  const agent = createAgent({ name: 'A', model: scriptedModel([say('more')]), log: fileLog(mine) })
  await agent.reply(UserMsg({ content: 'again' }))
  await agent.close()
  const other = tempLog()
  await writeSession(other, 'other')
  const otherLog = fileLog(other)
  try {
    assert.equal(texts(agent.log), ['mine', 'more'])
    assertLogHolds(agent.log, agent.state)
  } finally {
    await otherLog.close()
  }
})

test('agent.log after close() refuses with CLOSED when the path now names another file', async () => {
  const mine = tempLog()
  await writeSession(mine, 'mine')
  const agent = createAgent({ name: 'A', model: scriptedModel([say('more')]), log: fileLog(mine) })
  await agent.close()
  const other = tempLog()
  await writeSession(other, 'other')
  fs.renameSync(other, mine)
  assert.throws(() => agent.log, (error: AgentError) => error.code === 'CLOSED')
})

test('close() from an events$ subscriber waits for the interrupted reply to end, then releases the log', async () => {
  const watch = watchCrashes()
  const path = tempLog()
  const agent = createAgent({ name: 'A', model: scriptedModel([say('a long answer in pieces', 20)], { chunkDelayMs: 1 }), log: fileLog(path) })
  let closing: Promise<void> | null = null
  agent.events$.subscribe((event) => {
    if (event.type === 'TEXT_BLOCK_DELTA' && !closing) closing = agent.close()
  })
  const msg = await within(agent.reply(UserMsg({ content: 'go' })))
  assert.is(msg.finished_reason, 'interrupted')
  await within(closing!, 2000, 'close()')
  const onDisk = readLogFile(path).events
  assert.is(onDisk.at(-1)!.type, 'REPLY_END', 'the closing events reached the file before it was released')
  assertLogHolds(onDisk, agent.state)
  assert.not.ok(fs.existsSync(`${path}.lock`), 'the lock was released')
  assert.equal(await watch.stop(), [])
})

test.run()
