// Issue 9, item 3 with a real file system: a child process whose file size limit (`ulimit -f`)
// makes the file log's append fail with EFBIG mid-reply survives, its reply rejects with
// LOG_UNAVAILABLE naming EFBIG, its state is exactly the events on disk, and reopening the log
// recovers: the cut reply is closed as interrupted and the log passes every check.
import { spawn } from 'node:child_process'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createAgent, say, scriptedModel, UserMsg } from '../../lib/index.js'
import { fileLog, readLogFile } from '../../lib/node.js'
import { assertAgentHolds, assertLogHolds } from '../helpers/hardening.js'
import { childArgs } from './helpers/child.js'
import { tempLog } from './helpers/files.js'

const test = suite('log/full disk')

const runLimited = async (path: string, kilobytes: number) => {
  const argv = [process.execPath, ...await childArgs('fullDiskChild.ts'), path].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ')
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn('bash', ['-c', `ulimit -f ${kilobytes}; exec ${argv}`], { stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d: Buffer) => (stdout += d))
    child.stderr.on('data', (d: Buffer) => (stderr += d))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}

test('EFBIG mid-reply: the process survives, the reply rejects with LOG_UNAVAILABLE, reopening recovers', async () => {
  const path = tempLog()
  const { code, stdout, stderr } = await runLimited(path, 64)
  assert.is(code, 0, `the child survived (stderr: ${stderr.slice(0, 300)})`)
  const outcome = JSON.parse(stdout.trim().split('\n').at(-1)!) as { code: string; message: string; status: string; seq: number }
  assert.is(outcome.code, 'LOG_UNAVAILABLE')
  assert.match(outcome.message, /EFBIG/)
  const onDisk = readLogFile(path)
  assert.is(onDisk.torn, null, 'no partial line was left')
  assert.is(outcome.seq, onDisk.events.length, 'the state never ran ahead of what the log accepted')
  assert.is(outcome.status, 'running', 'the reply was cut, not recorded as finished')

  const agent = createAgent({ name: 'A', model: scriptedModel([say('back')]), log: fileLog(path, { durability: 'none' }) })
  assert.is(agent.state.status, 'idle', 'reopening closes the cut reply')
  const end = agent.log.at(-1)!
  assert.is(end.type === 'REPLY_END' && end.finished_reason, 'interrupted')
  assert.is((await agent.reply(UserMsg({ content: 'hi' }))).finished_reason, 'completed')
  assertAgentHolds(agent)
  await agent.close()
  assertLogHolds(readLogFile(path).events, agent.state)
})

test.run()
