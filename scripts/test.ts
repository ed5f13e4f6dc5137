// npm test's runner: `npm test` runs every spec (spec/**/*.spec.ts) in one uvu run, and
// `npm test -- PATH...` runs only the specs under each path (a folder, or one spec file), one uvu run
// per path, in order. Each run preloads spec/helpers/report.ts and prints uvu's own Total:/Passed:
// lines, which .ci/run adds up. The exit code is the first failing run's, else 0.
import { spawnSync } from 'node:child_process'
import { existsSync, statSync } from 'node:fs'
import { basename, dirname, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('../', import.meta.url))
const SPEC = '\\.spec\\.ts$'
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** The uvu arguments (a folder and a file pattern) that run the specs under `path`. */
export const uvuArgs = (path: string): [string, string] => {
  const full = resolve(root, path)
  if (!existsSync(full)) throw new Error(`npm test: ${path} does not exist; give a folder or a spec file, e.g. npm test -- spec/reducers`)
  const rel = relative(root, full) || '.'
  if (statSync(full).isDirectory()) return [rel, SPEC]
  if (!full.endsWith('.spec.ts')) throw new Error(`npm test: ${path} is not a spec file (its name ends in .spec.ts)`)
  return [dirname(rel), `^${escape(basename(rel))}$`]
}

const run = ([dir, pattern]: [string, string]): number => {
  const args = ['--import', 'tsx', '--import', './spec/helpers/report.ts', 'node_modules/uvu/bin.js', dir, pattern]
  return spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' }).status ?? 1
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const paths = process.argv.slice(2)
  let plan: [string, string][]
  try {
    plan = paths.length ? paths.map(uvuArgs) : [['spec', SPEC]]
  } catch (error) {
    console.error((error as Error).message)
    process.exit(2)
  }
  let status = 0
  for (const args of plan) {
    const code = run(args)
    if (code !== 0 && status === 0) status = code
  }
  process.exit(status)
}
