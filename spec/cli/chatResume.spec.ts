// `agentlog chat --log FILE` across sessions (issue 10 item 6): a chat that ends while an approval is
// pending leaves the reply paused in the log; the next start shows the earlier conversation briefly,
// asks again for the pending approval, and the reply goes on (or is interrupted with Ctrl-C). The
// log stays valid throughout. A log whose lock path is a directory is a one-line error (issue 9 item 18).
import fs from 'node:fs'
import path from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { z } from 'zod'
import { callTool, checkLog, createAgent, defineTool, replay, scriptedModel } from '../../lib/index.js'
import { fileLog } from '../../lib/node.js'
import { readLogFile } from '../../lib/stores/file/read.js'
import { tempDir } from '../log/helpers/files.js'
import { chatPiped, killChats } from './helpers/chat.js'

const test = suite('cli/chatResume')
test.after.each(killChats)

/** Starts a scripted chat with tools on `log`, asks "hello" and ends the input at the approval. */
const leavePaused = async (log: string) => {
  const first = chatPiped(['--scripted', '--tools', '--log', log], { NO_COLOR: '1' })
  first.type('hello\n')
  await first.waitFor('[y]es / [n]o / [e]dit', 'the approval', 20_000)
  first.child.stdin.end()
  assert.is(await first.exited, 0)
  assert.match(first.out.stdout, /the reply stays paused; agentlog chat --log .* asks again/)
  const { events } = readLogFile(log)
  const state = replay(events)
  assert.is(state.status, 'paused')
  assert.equal(state.waiting_for.map((c) => c.name), ['run_command'])
  return events.length
}

test('a chat ended at a pending approval resumes: history shown, the approval asked again, approved, the reply completes', async () => {
  const log = path.join(tempDir(), 'session.jsonl')
  await leavePaused(log)
  const second = chatPiped(['--scripted', '--tools', '--log', log], { NO_COLOR: '1' })
  await second.waitFor('[y]es / [n]o / [e]dit', 'the approval asked again', 20_000)
  const shown = second.out.stdout
  assert.match(shown, /── earlier in .*session\.jsonl ──\n> hello\n/)
  assert.match(shown, /Let me look at the clock first\./)
  assert.match(shown, /→ current_time \{\} \[done\]/)
  assert.match(shown, /→ run_command \{"command":"echo hello from the scripted model"\} \(asking\)/)
  assert.match(shown, /the last reply is paused, waiting for your answer/)
  second.type('y\n')
  await second.waitFor('The command ran', 'the reply to go on', 20_000)
  assert.match(second.out.stdout, /\nhello from the scripted model\n/)
  second.child.stdin.end()
  assert.is(await second.exited, 0)
  assert.is(second.out.stderr, '')
  const { events } = readLogFile(log)
  assert.equal(checkLog(events).violations, [])
  const state = replay(events)
  assert.is(state.status, 'idle')
  assert.is(state.context.at(-1)?.finished_reason, 'completed')
})

test('at the resumed approval, Ctrl-C interrupts the paused reply and the chat goes on with a new message', async () => {
  const log = path.join(tempDir(), 'session.jsonl')
  await leavePaused(log)
  const second = chatPiped(['--scripted', '--tools', '--log', log], { NO_COLOR: '1' })
  await second.waitFor('[y]es / [n]o / [e]dit', 'the approval asked again', 20_000)
  second.child.kill('SIGINT')
  await second.waitFor('[reply interrupted]', 'the interruption')
  second.type('again\n')
  await second.waitFor('> again', 'the next message')
  await second.waitFor('[y]es / [n]o / [e]dit', 'the next reply', 20_000)
  second.type('n\n')
  await second.waitFor('You denied the command', 'the end of the reply', 20_000)
  second.child.stdin.end()
  assert.is(await second.exited, 0)
  const { events } = readLogFile(log)
  assert.equal(checkLog(events).violations, [])
  assert.ok(events.some((e) => e.type === 'USER_INTERRUPT'))
  const interrupted = events.filter((e) => e.type === 'TOOL_RESULT_END' && e.state === 'interrupted')
  assert.is(interrupted.length, 1)
})

test('a log paused on an external call (written by another program): the chat asks for its result and the reply goes on', async () => {
  const log = path.join(tempDir(), 'external.jsonl')
  const browser = defineTool({ name: 'open_page', description: 'Opens a page', input: z.object({ url: z.string() }), external: true })
  const agent = createAgent({ name: 'assistant', model: scriptedModel([[...callTool('b1', 'open_page', { url: 'https://example.org' })]]), tools: [browser], log: fileLog(log) })
  await agent.reply('open it')
  await agent.close()
  const chat = chatPiped(['--scripted', '--log', log], { NO_COLOR: '1' })
  await chat.waitFor('its result (one line; Ctrl-C interrupts): ', 'the question', 20_000)
  assert.match(chat.out.stdout, /open_page runs outside this chat, with \{"url":"https:\/\/example\.org"\}/)
  chat.type('the page says hi\n')
  await chat.waitFor('without a key.', 'the reply to go on', 20_000)
  chat.child.stdin.end()
  assert.is(await chat.exited, 0)
  const state = replay(readLogFile(log).events)
  assert.is(state.status, 'idle')
  const result = state.context.at(-1)!.content.find((b) => b.type === 'tool_result')
  assert.is(result?.type === 'tool_result' && result.output, 'the page says hi')
})

test('chat --log FILE where FILE.lock is a directory: one line with a code, exit 1', async () => {
  const log = path.join(tempDir(), 'session.jsonl')
  fs.mkdirSync(`${log}.lock`)
  const chat = chatPiped(['--scripted', '--log', log])
  chat.child.stdin.end()
  assert.is(await chat.exited, 1)
  const lines = chat.out.stderr.trim().split('\n')
  assert.is(lines.length, 1, chat.out.stderr)
  assert.match(lines[0], /^agentlog chat: LOG_UNAVAILABLE: .*session\.jsonl\.lock is a directory/)
})

test.run()
