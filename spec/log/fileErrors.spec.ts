// fileLog on paths that cannot be a log (issue 9 item 18): a log path or a lock path that is a
// directory, or a folder that does not exist, is an AgentError with a code and a one-line message
// naming the path, never a bare Node error; nothing is created or changed.
import fs from 'node:fs'
import path from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { AgentError } from '../../lib/index.js'
import { fileLog } from '../../lib/node.js'
import { tempDir } from './helpers/files.js'

const test = suite('log/fileErrors')

const refusal = (open: () => unknown): AgentError => {
  try {
    open()
  } catch (error) {
    assert.instance(error, AgentError, String(error))
    assert.not.match((error as Error).message, /\n/)
    return error as AgentError
  }
  throw new Error('not refused')
}

test('a lock path that is a directory: LOG_UNAVAILABLE naming it, and the log is not created', () => {
  const dir = tempDir()
  const log = path.join(dir, 'session.jsonl')
  fs.mkdirSync(`${log}.lock`)
  const error = refusal(() => fileLog(log))
  assert.is(error.code, 'LOG_UNAVAILABLE')
  assert.match(error.message, /session\.jsonl\.lock is a directory.*EISDIR.*lock file/)
  assert.not.ok(fs.existsSync(log))
  assert.ok(fs.statSync(`${log}.lock`).isDirectory())
})

test('a log path that is a directory: LOG_UNAVAILABLE, and the lock is released', () => {
  const dir = tempDir()
  const log = path.join(dir, 'session.jsonl')
  fs.mkdirSync(log)
  const error = refusal(() => fileLog(log))
  assert.is(error.code, 'LOG_UNAVAILABLE')
  assert.match(error.message, /session\.jsonl is a directory, not a file \(EISDIR\)/)
  assert.not.ok(fs.existsSync(`${log}.lock`))
})

test('a log in a folder that does not exist: NOT_FOUND', () => {
  const error = refusal(() => fileLog(path.join(tempDir(), 'missing', 'session.jsonl')))
  assert.is(error.code, 'NOT_FOUND')
  assert.match(error.message, /ENOENT/)
})

test.run()
