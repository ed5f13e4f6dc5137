// Issue 9, item 12: a snapshot file is a cache, never the truth. Whatever damage it has (a header
// line that is null, an array, a number; a state that is null with a matching checksum; a snapshot
// that is a directory), it is ignored and reported through onRecover, and the log opens from the
// full fold to the same state.
import crypto from 'node:crypto'
import fs from 'node:fs'
import { isDeepStrictEqual } from 'node:util'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { snapshotPath } from '../../lib/stores/file/snapshot.js'
import { createAgent, replay, say, scriptedModel, UserMsg } from '../../lib/index.js'
import { fileLog, readLogFile, type Recovery } from '../../lib/node.js'
import { tempLog } from './helpers/files.js'

const test = suite('log/snapshot damage')

const sha256 = (text: string) => crypto.createHash('sha256').update(text).digest('hex')

const logWithSnapshot = async () => {
  const path = tempLog()
  const agent = createAgent({ name: 'A', model: scriptedModel([say('one'), say('two')]), log: fileLog(path, { snapshots: true }) })
  await agent.reply(UserMsg({ content: 'a' }))
  await agent.reply(UserMsg({ content: 'b' }))
  await agent.close()
  assert.ok(fs.existsSync(snapshotPath(path)), 'a snapshot was written')
  return path
}

const damages: [string, (text: string) => string][] = [
  ['a header that is null', (text) => `null\n${text.slice(text.indexOf('\n') + 1)}`],
  ['a header that is an array', (text) => `[1,2]\n${text.slice(text.indexOf('\n') + 1)}`],
  ['a header that is a number', (text) => `7\n${text.slice(text.indexOf('\n') + 1)}`],
  ['a state that is null, with a matching checksum', (text) => {
    const header = JSON.parse(text.slice(0, text.indexOf('\n'))) as Record<string, unknown>
    return `${JSON.stringify({ ...header, state_sha256: sha256('null') })}\nnull\n`
  }],
  ['a state that is a string, with a matching checksum', (text) => {
    const header = JSON.parse(text.slice(0, text.indexOf('\n'))) as Record<string, unknown>
    return `${JSON.stringify({ ...header, state_sha256: sha256('"x"') })}\n"x"\n`
  }],
  ['only a header line', (text) => text.slice(0, text.indexOf('\n'))],
]

for (const [what, damage] of damages) {
  test(`a snapshot with ${what} is ignored and reported; the log opens from the full fold`, async () => {
    const path = await logWithSnapshot()
    fs.writeFileSync(snapshotPath(path), damage(fs.readFileSync(snapshotPath(path), 'utf8')))
    const reported: Recovery[] = []
    const log = fileLog(path, { snapshots: true, onRecover: (info) => void reported.push(info) })
    const agent = createAgent({ name: 'A', model: scriptedModel([say('three')]), log })
    assert.equal(reported.map((r) => r.kind), ['snapshot-ignored'])
    assert.ok(isDeepStrictEqual(agent.state, replay(readLogFile(path).events)), 'the state is the full fold')
    assert.is((await agent.reply(UserMsg({ content: 'c' }))).finished_reason, 'completed')
    await agent.close()
  })
}

test('a snapshot path that is a directory is ignored and reported', async () => {
  const path = await logWithSnapshot()
  fs.rmSync(snapshotPath(path))
  fs.mkdirSync(snapshotPath(path))
  const reported: Recovery[] = []
  const log = fileLog(path, { snapshots: true, onRecover: (info) => void reported.push(info) })
  assert.equal(reported.map((r) => r.kind), ['snapshot-ignored'])
  assert.ok(isDeepStrictEqual(log.snapshot().state, replay(readLogFile(path).events)))
  await log.close().catch(() => undefined)
})

test.run()
