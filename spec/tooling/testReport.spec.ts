// npm test's closing report (spec/helpers/report.ts): it runs `npm test`'s own command line on a
// folder of small spec files, and checks that uvu's summary (which .ci/run counts) is unchanged and
// is followed by the time per spec file, slowest first, and by the specs skipped because
// PostgreSQL is missing (uvu counts those as nothing). `npm test -- PATH...` (scripts/test.ts)
// runs only the specs under each path, each run with its own summary.
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'

const test = suite('tooling/testReport')
const root = fileURLToPath(new URL('../../', import.meta.url))
let dir = ''

test.before(() => {
  mkdirSync(join(root, 'tmp'), { recursive: true })
  dir = mkdtempSync(join(root, 'tmp', 'report-')) // inside the repository, so the specs resolve uvu
  mkdirSync(join(dir, 'postgres'))
  const spec = (body: string) => `import { suite } from 'uvu'\nimport * as assert from 'uvu/assert'\n${body}`
  writeFileSync(join(dir, 'quick.spec.ts'), spec(`const test = suite('quick')\ntest('one', () => assert.ok(true))\ntest.run()\n`))
  writeFileSync(join(dir, 'slow.spec.ts'), spec(`const test = suite('slow')\ntest('waits', async () => { await new Promise((r) => setTimeout(r, 400)); assert.ok(true) })\ntest.run()\n`))
  writeFileSync(join(dir, 'postgres', 'db.spec.ts'), spec(`import { postgresAvailable } from ${JSON.stringify(join(root, 'spec/postgres/helpers/db.ts'))}
const test = suite('db')
test('first', () => assert.ok(true))
test('second', () => assert.ok(true))
if (postgresAvailable(${JSON.stringify(join(dir, 'postgres', 'db.spec.ts'))})) test.run()\n`))
})

test.after(() => {
  if (dir) rmSync(dir, { recursive: true, force: true })
})

/** `npm test -- ...paths`: the script's own command line with the paths after it; its output without colours. */
const npmTest = (...paths: string[]): string => {
  const script: string = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts.test
  assert.is(script, 'node --import tsx scripts/test.ts')
  const env = { ...process.env, DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nowhere', CI: '', FORCE_COLOR: '0' }
  const run = spawnSync(process.execPath, [...script.split(' ').slice(1), ...paths], { cwd: root, encoding: 'utf8', env, timeout: 60_000 })
  assert.is(run.status, 0, run.stderr + run.stdout)
  return run.stdout.replace(/\x1b\[[0-9;]*m/g, '')
}
const totals = (out: string) => [...out.matchAll(/^\s*Total:\s+(\d+)$/gm)].map((m) => Number(m[1]))

test('npm test prints uvu\'s summary, then the time per spec file slowest first, then the specs skipped for a missing service', () => {
  const out = npmTest(dir)
  assert.match(out, /^\s*Total:\s+2$/m)
  assert.match(out, /^\s*Passed:\s+2$/m)
  const timing = out.slice(out.indexOf('Time per spec file'))
  assert.ok(out.indexOf('Passed:') < out.indexOf('Time per spec file'), out)
  const files = [...timing.matchAll(/^\s+\d+\.\d s\s+(\S+)$/gm)].map((m) => m[1])
  assert.equal(files, ['slow.spec.ts', 'quick.spec.ts'])
  assert.match(timing, /Skipped for a missing service: 2 specs in 1 files \(PostgreSQL\): .*postgres\/db\.spec\.ts/)
  assert.not.match(timing, /^\s*(Passed|Total):/m, 'the report adds no line .ci/run would count')
})

test('npm test -- PATH runs only the specs under that path: a spec file, a folder, or several', () => {
  assert.equal(totals(npmTest(join(dir, 'quick.spec.ts'))), [1])
  assert.equal(totals(npmTest(join(dir, 'postgres'))), [0])
  const both = npmTest(join(dir, 'quick.spec.ts'), join(dir, 'slow.spec.ts'))
  assert.equal(totals(both), [1, 1])
  assert.equal([...both.matchAll(/^\s*Passed:\s+(\d+)$/gm)].map((m) => Number(m[1])), [1, 1])
})

test('npm test -- a path that does not exist says so in one line, exit code 2', () => {
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/test.ts', 'spec/no-such-folder'], { cwd: root, encoding: 'utf8', timeout: 60_000 })
  assert.is(run.status, 2)
  assert.is(run.stderr.trim(), 'npm test: spec/no-such-folder does not exist; give a folder or a spec file, e.g. npm test -- spec/reducers')
})

test.run()
