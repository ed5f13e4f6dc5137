// The package as `npm pack` makes it (which builds dist/ first), made once per test process and
// shared by the specs that install it (spec/package): its folder, the tarball and the files in it.
// The folder is removed when the process exits.
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

export const root = fileURLToPath(new URL('../../', import.meta.url))
export const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'

export interface Packed {
  /** A temporary folder holding the tarball (and free for the specs' projects). */
  dir: string
  tarball: string
  files: string[]
}

let packing: Promise<Packed> | null = null

export const packed = (): Promise<Packed> => (packing ??= (async () => {
  const dir = mkdtempSync(join(tmpdir(), 'agentlog-pack-'))
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }))
  const { stdout } = await promisify(execFile)(npm, ['pack', '--json', '--pack-destination', dir], { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 })
  const [info] = JSON.parse(stdout.slice(stdout.indexOf('[')))
  return { dir, tarball: join(dir, info.filename), files: info.files.map((f: { path: string }) => f.path) }
})())
