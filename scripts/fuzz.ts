// npm run fuzz: the property specs of spec/properties with many more cases and a fresh seed, which
// it prints first and last, so that any failure can be replayed exactly:
//   npm run fuzz -- --seed 123 --runs 5000 --minutes 5 --stats --gaps all
// A failure prints its seed, path and (for a conversation) replayPath; replay it with
// FUZZ_SEED=<seed> FUZZ_PATH=<path> FUZZ_COMMANDS_PATH=<replayPath> npx uvu -r tsx spec/properties <file>.
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const args = process.argv.slice(2)
const option = (name: string): string | undefined => {
  const i = args.indexOf(`--${name}`)
  return i >= 0 ? args[i + 1] : undefined
}
const number = (name: string, fallback: number): number => {
  const raw = option(name)
  if (raw === undefined) return fallback
  const value = Number(raw)
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} must be a positive number; received ${raw}`)
  return value
}

const seed = Math.trunc(number('seed', Math.floor(Math.random() * 0x7fffffff)))
const runs = Math.trunc(number('runs', 2000))
const minutes = number('minutes', 3)
const pattern = option('only') ?? '\\.spec\\.ts$'
const env = {
  ...process.env,
  FUZZ_SEED: String(seed),
  FUZZ_RUNS: String(runs),
  // Per property: stop generating new cases after this long (a run in progress finishes).
  FUZZ_TIME_LIMIT_MS: String(Math.round(minutes * 60_000)),
  ...(args.includes('--stats') ? { FUZZ_STATS: '1' } : {}),
  ...(option('gaps') ? { FUZZ_KNOWN_GAPS: option('gaps') } : {}),
}

const root = fileURLToPath(new URL('..', import.meta.url))
const banner = `fuzz: seed ${seed}, up to ${runs} cases and ${minutes} min per property (spec/properties, ${pattern})`
console.log(banner)
const uvu = fileURLToPath(new URL('../node_modules/uvu/bin.js', import.meta.url))
const result = spawnSync(process.execPath, [uvu, '-r', 'tsx', 'spec/properties', pattern], { cwd: root, env, stdio: 'inherit' })
console.log(`\n${banner}: ${result.status === 0 ? 'all properties held' : 'a property FAILED (see its seed and path above)'}`)
process.exit(result.status ?? 1)
