// Temporary files for the log specs: a fresh directory per call (removed when the process exits),
// and small readers of what a log left on disk.
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
