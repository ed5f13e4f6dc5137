// Issue 9, item 17: the writer's lock follows the real file, not the spelling of its path. A second
// writer through a symlink or a hard link (in this process or another) is refused with LOG_LOCKED,
// and the file is not touched by the refused writer; a writer that was SIGKILLed leaves locks that
// the next writer takes over.
import fs from 'node:fs'
import path from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { AgentError } from '../../lib/index.js'
import { fileLog } from '../../lib/node.js'
import { startChild } from './helpers/child.js'
import { tempDir, tempLog } from './helpers/files.js'
import { isAlive } from '../helpers/expect.js'

const test = suite('log/lock identity')

const refusedLocked = (file: string) => {
  const before = fs.readFileSync(file)
  assert.throws(() => fileLog(file), (error: AgentError) => error.code === 'LOG_LOCKED')
  assert.ok(fs.readFileSync(file).equals(before), 'the refused writer changed nothing')
}

for (const [kind, makeLink] of [['symlink', fs.symlinkSync], ['hard link', fs.linkSync]] as const) {
  test(`a second writer through a ${kind} in this process is refused, and writes once the first has closed`, async () => {
    const real = tempLog()
    const log = fileLog(real)
    const link = path.join(tempDir(), 'link.jsonl')
    makeLink(real, link)
    refusedLocked(link)
    await log.close()
    await fileLog(link).close()
  })
}

test('a writer through a symlink is refused the real path, and the other way round', async () => {
  const real = tempLog()
  const link = path.join(tempDir(), 'link.jsonl')
  fs.symlinkSync(real, link)
  const viaLink = fileLog(link)
  refusedLocked(real)
  await viaLink.close()
})


test('a writer in another process holding the real path refuses a writer through a symlink', async () => {
  const real = tempLog()
  const link = path.join(tempDir(), 'link.jsonl')
  fs.symlinkSync(real, link)
  const holder = await startChild('lockHolder.ts', [real])
  assert.is(holder.firstLine, 'ready')
  refusedLocked(link)
  assert.is(await holder.stop(), 0)
  await fileLog(link).close()
})

/** A file and a hard link to it, the file held by a writer in another process that a writer through the link was refused by. */
const heldThroughHardLink = async () => {
  const real = tempLog()
  fs.writeFileSync(real, '')
  const hard = path.join(tempDir(), 'hard.jsonl')
  fs.linkSync(real, hard)
  const holder = await startChild('lockHolder.ts', [real])
  assert.is(holder.firstLine, 'ready')
  refusedLocked(hard)
  return { real, hard, holder }
}

test('a writer in another process holding a hard link refuses a writer through the other link until it closes', async () => {
  const { hard, holder } = await heldThroughHardLink()
  assert.is(await holder.stop(), 0)
  const log = fileLog(hard)
  assert.equal(log.recovered, [], 'a closed writer leaves no lock behind')
  await log.close()
})

test('a writer SIGKILLed while holding a hard link leaves a stale lock the next writer through the other link takes over', async () => {
  const { real, hard, holder } = await heldThroughHardLink()
  process.kill(holder.pid, 'SIGKILL')
  for (let i = 0; i < 500 && isAlive(holder.pid); i++) await new Promise((resolve) => setTimeout(resolve, 10))
  const log = fileLog(hard)
  assert.equal(log.recovered.map((r) => r.kind === 'stale-lock' && r.holder?.pid), [holder.pid], 'taken over, reported once')
  await log.close()
  await fileLog(real).close()
})

test.run()
