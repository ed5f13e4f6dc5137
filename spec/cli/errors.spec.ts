// The first day's errors are one line each (issue 33 item 11): `agentlog serve` on a port in use,
// with --agent naming a missing file, with --port -1, or on 0.0.0.0 without a token says what is
// wrong in one line that names what to change (no stack, no literal "\n"); remoteAgent with the
// server down or a URL without a scheme names the URL; REPLY_PAUSED tells an Agent user about
// approve / deny / submitResult / interrupt(); no message says "received undefined undefined".
import { createServer } from 'node:net'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { AgentError, callTool, createAgent, defineTool, remoteAgent, say, scriptedModel } from '../../lib/index.js'
import { describe } from '../../lib/core/errors.js'
import { serveProcess } from '../helpers/serveProcess.js'
import { z } from 'zod'

const test = suite('cli/errors')
let dir = ''
test.before(() => void (dir = mkdtempSync(join(tmpdir(), 'agentlog-errors-'))))
test.after(() => rmSync(dir, { recursive: true, force: true }))

/** serve's stderr, which must be one line without a stack, and its exit code. */
const oneLine = async (args: string[], env: Record<string, string> = {}): Promise<{ line: string; code: number | null }> => {
  const run = serveProcess(['--store', join(dir, 'sessions'), ...args], env)
  const code = await run.exited
  const lines = run.out.stderr.trim().split('\n')
  assert.is(lines.length <= 2, true, `one line (and the usage for a mistake in the command line):\n${run.out.stderr}`)
  assert.not.match(run.out.stderr, /^\s+at /m, `no stack:\n${run.out.stderr}`)
  assert.not.match(run.out.stderr, '\\n', `no literal \\n:\n${run.out.stderr}`)
  return { line: lines[0], code }
}

test('a port in use: one line naming the port and what to do, exit code 1', async () => {
  const taken = createServer()
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve))
  const port = (taken.address() as { port: number }).port
  try {
    const { line, code } = await oneLine(['--scripted', '--port', String(port)])
    assert.is(code, 1)
    assert.match(line, `port ${port} on 127.0.0.1 is in use`)
    assert.match(line, '--port 0')
  } finally {
    taken.close()
  }
})

test('--agent naming a missing file: one line naming the file, exit code 1', async () => {
  const { line, code } = await oneLine(['--agent', './no-such-agent.ts'])
  assert.is(code, 1)
  assert.match(line, '--agent ./no-such-agent.ts: no such file')
})

test('--port -1: one line, no literal \\n, exit code 2', async () => {
  const { line, code } = await oneLine(['--scripted', '--port', '-1'])
  assert.is(code, 2)
  assert.match(line, '--port -1')
  const written = await oneLine(['--scripted', '--port=-1'])
  assert.is(written.code, 2)
  assert.match(written.line, '--port must be a port number; received -1')
})

test('--host 0.0.0.0 without a token names AGENTLOG_TOKEN, exit code 1', async () => {
  const { line, code } = await oneLine(['--scripted', '--host', '0.0.0.0'])
  assert.is(code, 1)
  assert.match(line, 'AGENTLOG_TOKEN')
  assert.match(line, '--host 0.0.0.0')
})

test('remoteAgent with the server down names the URL; a URL without a scheme is refused at once', async () => {
  const closed = createServer()
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(closed.address() as { port: number }).port}`
  await new Promise<void>((resolve) => closed.close(() => resolve()))
  const down = remoteAgent({ url, session: 's1' })
  const error = await down.reply('hi').then(() => null, (e: unknown) => e)
  assert.instance(error, AgentError)
  assert.is((error as AgentError).code, 'UNREACHABLE')
  assert.match((error as AgentError).message, `No agentlog server answers at ${url}`)
  down.close()
  for (const bare of ['localhost:8787', '127.0.0.1:8787']) {
    try {
      remoteAgent({ url: bare, session: 's1' })
      assert.unreachable('a URL without a scheme is refused')
    } catch (e) {
      assert.is((e as AgentError).code, 'INVALID_OPTION')
      assert.match((e as AgentError).message, JSON.stringify(bare))
      assert.match((e as AgentError).message, 'http://127.0.0.1:8787')
    }
  }
})

test('REPLY_PAUSED tells an Agent user what to call', async () => {
  const deleteFile = defineTool({ name: 'delete_file', description: 'Deletes', input: z.object({ path: z.string() }), permission: 'ask', execute: () => 'ok' })
  const agent = createAgent({ name: 'Friday', tools: [deleteFile], model: scriptedModel([callTool('c1', 'delete_file', { path: '/a' })]) })
  await agent.reply('delete /a')
  const error = await agent.reply('and another thing').then(() => null, (e: unknown) => e) as AgentError
  assert.is(error.code, 'REPLY_PAUSED')
  for (const call of ['agent.approve(', 'agent.deny(', 'agent.submitResult(', 'agent.interrupt()']) assert.match(error.message, call)
  assert.match(error.message, 'delete_file c1, asking for approval')
  assert.not.match(error.message, 'UserConfirmResultEvent')
  await agent.interrupt()
})

test('a missing value is described once, never "undefined undefined"', () => {
  assert.is(describe(undefined), 'undefined')
  assert.is(`received ${describe(undefined)}`, 'received undefined')
  assert.is(describe(3), 'number 3')
})

test.run()
