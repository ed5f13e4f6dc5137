// Child processes for the cross-process specs. A child script is bundled once with esbuild (tsx's
// own compiler), so it starts in a third of the time tsx needs per process; without esbuild it
// runs through tsx. `runChild` runs one to its end and returns what it printed.
import { spawn } from 'node:child_process'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { tempDir } from './files.js'

const here = path.dirname(fileURLToPath(import.meta.url))
const bundles = new Map<string, Promise<string[]>>()

/** The node arguments that run the helper script `name` (e.g. 'crashChild.ts'). */
export const childArgs = (name: string): Promise<string[]> => {
  let args = bundles.get(name)
  if (!args) {
    const entry = path.join(here, name)
    args = (async () => {
      try {
        const { build } = await import('esbuild')
        const outfile = path.join(tempDir(), name.replace(/\.ts$/, '.mjs'))
        await build({ entryPoints: [entry], bundle: true, platform: 'node', format: 'esm', outfile, logLevel: 'silent' })
        return [outfile]
      } catch {
        return ['--import', 'tsx', entry]
      }
    })()
    bundles.set(name, args)
  }
  return args
}

export interface ChildResult { code: number | null; stdout: string; stderr: string }

export const runChild = async (name: string, args: string[]): Promise<ChildResult> => {
  const argv = [...await childArgs(name), ...args]
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, argv, { stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (data: Buffer) => (stdout += data))
    child.stderr.on('data', (data: Buffer) => (stderr += data))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}

/** Starts a child and resolves once it printed its first line (it then runs until its stdin ends). */
export const startChild = async (name: string, args: string[]) => {
  const argv = [...await childArgs(name), ...args]
  const child = spawn(process.execPath, argv, { stdio: ['pipe', 'pipe', 'pipe'] })
  const firstLine = await new Promise<string>((resolve, reject) => {
    let out = ''
    let err = ''
    child.stderr.on('data', (data: Buffer) => (err += data))
    child.stdout.on('data', (data: Buffer) => {
      out += data
      if (out.includes('\n')) resolve(out.slice(0, out.indexOf('\n')))
    })
    child.on('close', (code) => reject(new Error(`${name} ended (code ${code}) before it was ready: ${err}`)))
  })
  const stop = () => new Promise<number | null>((resolve) => {
    child.removeAllListeners('close')
    child.on('close', resolve)
    child.stdin.end()
  })
  return { pid: child.pid!, firstLine, stop }
}
