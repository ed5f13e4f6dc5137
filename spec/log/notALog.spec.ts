// Issue 9, item 2: a file that does not start with the version marker (a settings.json, a note, a
// token file) is not a log. fileLog refuses it with INVALID_LOG and leaves it byte for byte
// unchanged; readLogFile and `agentlog validate` do not call it valid. A log cut while its marker
// was written (a prefix of the marker) is still a log, and opens.
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import { fileURLToPath } from 'node:url'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { main } from '../../lib/cli/main.js'
import { MARKER } from '../../lib/stores/file/read.js'
import { AgentError } from '../../lib/index.js'
import { fileLog, readLogFile } from '../../lib/node.js'
import { tempLog } from './helpers/files.js'

const test = suite('log/not a log')

const notLogs: [string, string][] = [
  ['a one-line JSON settings file', '{"theme":"dark"}\n'],
  ['a one-line JSON file without a newline', '{"theme":"dark"}'],
  ['a note of one line without a newline', 'remember the milk'],
  ['a note of one line', 'remember the milk\n'],
  ['a token file', 'sk-live-0123456789abcdef'],
  ['a multi-line JSON file', '{\n  "theme": "dark"\n}\n'],
  ['binary bytes', '\u0000\u0001\u0002\u00ff'],
]

for (const [what, content] of notLogs) {
  test(`${what} is refused with INVALID_LOG and left unchanged; validate does not call it valid`, async () => {
    const path = tempLog('settings.json')
    fs.writeFileSync(path, content)
    const before = fs.readFileSync(path)
    assert.throws(() => fileLog(path), (error: AgentError) => error.code === 'INVALID_LOG' && /not an agentlog log/.test(error.message))
    assert.ok(fs.readFileSync(path).equals(before), 'the file is byte for byte unchanged')
    assert.not.ok(fs.existsSync(`${path}.lock`), 'no lock is left behind')
    assert.throws(() => readLogFile(path), (error: AgentError) => error.code === 'INVALID_LOG')
    const err: string[] = []
    const code = await main(['validate', path], { out: () => undefined, err: (t) => void err.push(t) })
    assert.is(code, 1)
    assert.match(err.join('\n'), /not an agentlog log/)
    assert.ok(fs.readFileSync(path).equals(before), 'validate left it unchanged too')
  })
}

test('agentlog chat --log with a settings file exits 1 with INVALID_LOG\'s message and leaves it unchanged', () => {
  const path = tempLog('settings.json')
  fs.writeFileSync(path, '{"theme":"dark"}')
  const bin = fileURLToPath(new URL('../../bin/agentlog.js', import.meta.url))
  const { status, stderr } = spawnSync(process.execPath, [bin, 'chat', '--scripted', '--log', path], { input: '', encoding: 'utf8' })
  assert.is(status, 1)
  assert.match(stderr, /not an agentlog log/)
  assert.is(fs.readFileSync(path, 'utf8'), '{"theme":"dark"}')
})

test('a log cut while its marker was written is still a log: the torn marker is cut and rewritten', async () => {
  const path = tempLog()
  fs.writeFileSync(path, MARKER.slice(0, 5))
  const log = fileLog(path)
  await log.close()
  assert.is(fs.readFileSync(path, 'utf8'), MARKER)
})

test.run()
