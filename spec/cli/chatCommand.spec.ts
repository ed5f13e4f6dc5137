// `agentlog chat --tools`, run_command and Ctrl-C (issue 10 item 7): interrupting the reply while a
// command runs kills the command and everything it started (its process group), not only the
// shell: a background `sleep` the command spawned is gone too.
import fs from 'node:fs'
import path from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { tempDir } from '../log/helpers/files.js'
import { chatPiped, chatServer, killChats } from './helpers/chat.js'

const test = suite('cli/chatCommand')
test.after.each(killChats)

/** Alive and not a zombie (a killed child whose parent is gone may stay a zombie until reaped). */
const running = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
  } catch {
    return false
  }
  try {
    return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'))
  } catch {
    return true
  }
}

const until = async (check: () => boolean, what: string, ms = 10_000) => {
  const start = Date.now()
  while (!check()) {
    if (Date.now() - start > ms) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

test('Ctrl-C while run_command runs kills the shell and the processes it started', async () => {
  const pidFile = path.join(tempDir(), 'pids')
  const command = `sleep 30 & echo $! > ${pidFile}.tmp; echo $$ >> ${pidFile}.tmp; mv ${pidFile}.tmp ${pidFile}; wait`
  const server = await chatServer((_, n) => (n === 0 ? { call: { id: 'c1', name: 'run_command', args: JSON.stringify({ command }) } } : { text: 'stopped' }))
  const chat = chatPiped(['--tools'], { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: server.url, NO_COLOR: '1' })
  chat.type('sleep a while\n')
  await chat.waitFor('[y]es / [n]o / [e]dit', 'the approval')
  chat.type('y\n')
  await until(() => fs.existsSync(pidFile), 'the command to start')
  const pids = fs.readFileSync(pidFile, 'utf8').trim().split('\n').map(Number)
  assert.is(pids.length, 2)
  assert.ok(pids.every(running), 'the shell and its sleep run')
  chat.child.kill('SIGINT')
  await chat.waitFor('[reply interrupted]', 'the interruption')
  assert.match(chat.out.stdout, /\[interrupted\]\n\[reply interrupted\]/)
  await until(() => !pids.some(running), `the shell and the sleep (${pids.join(', ')}) to end`, 5000)
  chat.child.stdin.end()
  assert.is(await chat.exited, 0)
  server.close()
})

test.run()
