// `agentlog serve` as a child process on an ephemeral port: its URL (read from what it prints),
// its output, and its exit code.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const bin = fileURLToPath(new URL('../../bin/agentlog.js', import.meta.url))

export interface ServeProcess {
  child: ChildProcessWithoutNullStreams
  out: { stdout: string; stderr: string }
  exited: Promise<number | null>
  /** Resolves with the URL once it listens; rejects if it exits first. */
  url: Promise<string>
  stop(): Promise<number | null>
}

/** `entry` runs the agentlog command (default bin/agentlog.js; a benchmark passes a bundle of it). */
export const serveProcess = (args: string[], env: Record<string, string> = {}, entry: string[] = [bin]): ServeProcess => {
  const child = spawn(process.execPath, [...entry, 'serve', '--port', '0', ...args], { env: { PATH: process.env.PATH ?? '', ...env } }) as ChildProcessWithoutNullStreams
  const out = { stdout: '', stderr: '' }
  child.stdout.on('data', (d) => (out.stdout += d))
  child.stderr.on('data', (d) => (out.stderr += d))
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  const url = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', () => {
      const found = /listening on (http:\/\/\S+)/.exec(out.stdout)
      if (found) resolve(found[1])
    })
    void exited.then(() => reject(new Error(`serve exited: ${out.stderr}`)))
  })
  url.catch(() => {}) // a run that is meant to fail is checked through `exited`
  return {
    child, out, exited, url,
    stop: () => {
      child.kill('SIGTERM')
      return exited
    },
  }
}
