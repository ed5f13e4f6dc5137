// `agentlog serve --a2a` in a process of its own (ephemeral port, a fresh directory store), with
// the spec's fixture agent; its URL is read from the line it prints.
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export interface Served {
  url: string
  close(): Promise<void>
}

const bin = new URL('../../bin/agentlog.js', import.meta.url).pathname
const fixture = new URL('./fixtures/remote.ts', import.meta.url).pathname

export const serveA2a = (env: Record<string, string> = {}): Promise<Served> => new Promise((resolve, reject) => {
  const dir = mkdtempSync(join(tmpdir(), 'agentlog-a2a-'))
  const child: ChildProcess = spawn(process.execPath, [bin, 'serve', '--a2a', '--agent', fixture, '--store', dir, '--port', '0'], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  const close = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((done) => child.once('exit', done))
      child.kill('SIGTERM')
      await exited
    }
    rmSync(dir, { recursive: true, force: true })
  }
  child.stderr!.on('data', (chunk) => (err += chunk))
  child.stdout!.on('data', (chunk) => {
    out += chunk
    const found = /listening on (http:\/\/\S+)/.exec(out)
    if (found) resolve({ url: found[1], close })
  })
  child.once('exit', (code) => reject(new Error(`agentlog serve exited ${code}: ${err}${out}`)))
})
