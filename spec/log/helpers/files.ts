// Temporary files for the log specs: a fresh directory per call (removed when the process exits),
// small readers of what a log left on disk, and a directory's copy as a crash of its writer leaves it.
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

const made: string[] = []
process.on('exit', () => {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true })
})

export const tempDir = (): string => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentlog-spec-'))
  made.push(dir)
  return dir
}

export const tempLog = (name = 'session.jsonl'): string => path.join(tempDir(), name)

export const lines = (file: string): string[] => fs.readFileSync(file, 'utf8').split('\n')

export const bytes = (file: string): Buffer => fs.readFileSync(file)

/**
 * A copy of `dir` as a SIGKILL of the process writing it would leave it: the files' bytes as they
 * are now (copied in one synchronous pass, so logs appended synchronously are one moment's), each
 * lock naming a dead pid.
 */
export const crashCopy = (dir: string): string => {
  const after = tempDir()
  const dead = spawnSync(process.execPath, ['-e', '0']).pid!
  for (const name of fs.readdirSync(dir)) {
    if (name.endsWith('.lock')) fs.writeFileSync(path.join(after, name), JSON.stringify({ pid: dead, host: os.hostname(), time: new Date().toISOString() }))
    else fs.cpSync(path.join(dir, name), path.join(after, name), { recursive: true })
  }
  return after
}
