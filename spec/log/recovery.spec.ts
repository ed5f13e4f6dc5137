// What opening a damaged or busy log does: a torn last line is cut and reported; a corrupt line
// elsewhere, a log of a newer format, or a file that is not a log is refused with nothing
// changed; a second writer (this process or another) gets LOG_LOCKED naming the holder; the lock
// of a dead process is taken over.
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { AgentError } from '../../lib/index.js'
import { fileLog, type Recovery } from '../../lib/stores/file/index.js'
import { echoAgent } from './helpers/agents.js'
import { startChild } from './helpers/child.js'
import { bytes, lines, tempLog } from './helpers/files.js'

const test = suite('log/recovery')

/** A closed log of one echo reply; returns its path, its bytes and its events. */
const closedLog = async () => {
  const file = tempLog()
  const agent = await echoAgent(fileLog(file))
  await agent.close()
  return { file, original: bytes(file), events: JSON.parse(JSON.stringify(agent.log)) as unknown[] }
}

const refused = (file: string, code: string): AgentError => {
  try {
    fileLog(file)
  } catch (error) {
    assert.instance(error, AgentError)
    assert.is((error as AgentError).code, code, (error as Error).message)
    return error as AgentError
  }
  return assert.unreachable(`opening ${file} should fail with ${code}`) as never
}

test('a torn last line without its newline is cut off and reported', async () => {
  const { file, original, events } = await closedLog()
  fs.appendFileSync(file, '{"id":"half-written","created_at":"2026')
  const seen: Recovery[] = []
  const log = fileLog(file, { onRecover: (r) => seen.push(r) })
  assert.equal(seen, [{ kind: 'torn-tail', line: events.length + 2, offset: original.length, bytes: 39, reason: 'no newline' }])
  assert.equal(log.recovered, seen)
  assert.equal(log.events, events)
  assert.equal(bytes(file), original, 'the file is cut back to its last complete line')
  await log.close()
})

test('a last line that is not JSON (zeros after a power loss) is cut off and reported', async () => {
  const { file, original, events } = await closedLog()
  fs.appendFileSync(file, `${'\0'.repeat(40)}\n`)
  const log = fileLog(file)
  assert.is(log.recovered.length, 1)
  assert.is(log.recovered[0].kind === 'torn-tail' && log.recovered[0].reason, 'not JSON')
  assert.is(log.events.length, events.length)
  assert.equal(bytes(file), original)
  await log.close()
})

test('a log whose only line, the marker, was torn starts afresh', async () => {
  const file = tempLog()
  fs.writeFileSync(file, '{"agentl')
  const log = fileLog(file)
  assert.is(log.recovered[0].kind, 'torn-tail')
  assert.is(lines(file)[0], '{"agentlog":1}')
  await log.close()
})

test('a corrupt line in the middle is INVALID_LOG with its line number, and nothing is changed', async () => {
  const { file, original } = await closedLog()
  const text = lines(file)
  text[5] = '{"id": broken'
  fs.writeFileSync(file, text.join('\n'))
  const before = bytes(file)
  const error = refused(file, 'INVALID_LOG')
  assert.equal(error.data, { path: file, line: 6 })
  assert.match(error.message, `${file}:6: not valid JSON`)
  assert.equal(bytes(file), before, 'the file is untouched')
  assert.not.ok(fs.existsSync(`${file}.lock`), 'no lock is left behind')
  assert.is.not(before.length, original.length)
})

test('a middle line that is JSON but not an event, or out of order, is INVALID_LOG with its line', async () => {
  const { file } = await closedLog()
  const text = lines(file)
  const event = JSON.parse(text[3])
  fs.writeFileSync(file, [...text.slice(0, 3), JSON.stringify({ ...event, type: 'TEXT_BLOCK_DELTA' }), ...text.slice(4)].join('\n'))
  assert.match(refused(file, 'INVALID_LOG').message, `${file}:4: not a valid event`)
  fs.writeFileSync(file, [text[0], text[1], text[3], text[2], ...text.slice(4)].join('\n'))
  assert.match(refused(file, 'INVALID_LOG').message, `${file}:3: MODEL_CALL_START is stamped seq 3 but is event 2`)
})

test('a log written by a newer format version is refused with LOG_VERSION, untouched', async () => {
  const { file } = await closedLog()
  const text = lines(file)
  text[0] = '{"agentlog":2}'
  fs.writeFileSync(file, text.join('\n'))
  const before = bytes(file)
  assert.match(refused(file, 'LOG_VERSION').message, /newer agentlog \(log format 2/)
  assert.equal(bytes(file), before)
})

test('a file that does not start with the version marker is not a log', () => {
  const file = tempLog()
  fs.writeFileSync(file, '{"type":"USER_MESSAGE"}\n')
  assert.match(refused(file, 'INVALID_LOG').message, `${file}:1: line 1 is not the agentlog version marker`)
})

test('a second writer in the same process gets LOG_LOCKED naming this process; closing frees it', async () => {
  const file = tempLog()
  const first = fileLog(file)
  const error = refused(file, 'LOG_LOCKED')
  assert.match(error.message, `by this process ${process.pid} on ${os.hostname()}`)
  await first.close()
  await fileLog(file).close()
})

test('a second writer in another process gets LOG_LOCKED naming that process', async () => {
  const file = tempLog()
  const holder = await startChild('lockHolder.ts', [file])
  assert.is(holder.firstLine, 'ready')
  const error = refused(file, 'LOG_LOCKED')
  assert.match(error.message, `by process ${holder.pid} on ${os.hostname()}`)
  assert.equal((error.data as { holder: { pid: number } }).holder.pid, holder.pid)
  assert.is(await holder.stop(), 0)
  await fileLog(file).close()
})

test('the lock of a process that is gone is taken over and reported', async () => {
  const { file } = await closedLog()
  const dead = spawnSync(process.execPath, ['-e', '0']).pid!
  const holder = { pid: dead, host: os.hostname(), time: '2026-01-01T00:00:00.000Z' }
  fs.writeFileSync(`${file}.lock`, JSON.stringify(holder))
  const log = fileLog(file)
  assert.equal(log.recovered, [{ kind: 'stale-lock', holder }])
  assert.match(fs.readFileSync(`${file}.lock`, 'utf8'), `"pid":${process.pid}`)
  await log.close()
})

test("a lock held on another host is not taken over: LOG_LOCKED names the host", async () => {
  const { file } = await closedLog()
  fs.writeFileSync(`${file}.lock`, JSON.stringify({ pid: 1, host: 'elsewhere.example', time: '2026-01-01T00:00:00.000Z' }))
  assert.match(refused(file, 'LOG_LOCKED').message, 'process 1 on elsewhere.example')
})

test.run()
