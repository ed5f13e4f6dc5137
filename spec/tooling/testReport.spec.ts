// npm test's closing report (spec/helpers/report.ts): it runs `npm test`'s own command line on a
// folder of small spec files, and checks that uvu's summary (which .ci/run counts) is unchanged and
// is followed by the time per spec file, slowest first, and by the specs skipped because
// PostgreSQL is missing (uvu counts those as nothing).
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

test('npm test prints uvu\'s summary, then the time per spec file slowest first, then the specs skipped for a missing service', () => {
  const script: string = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts.test
  assert.match(script, / spec "/, 'npm test runs the spec folder')
  const args = script.replace(/^node /, '').replace(' spec "', ` ${dir} "`).match(/"[^"]*"|\S+/g)!.map((a) => a.replace(/^"|"$/g, '').replace(/\\\\/g, '\\'))
  const env = { ...process.env, DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nowhere', CI: '', FORCE_COLOR: '0' }
  const run = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8', env, timeout: 60_000 })
  assert.is(run.status, 0, run.stderr + run.stdout)
  const out = run.stdout.replace(/\x1b\[[0-9;]*m/g, '')
  assert.match(out, /^\s*Total:\s+2$/m)
  assert.match(out, /^\s*Passed:\s+2$/m)
  const timing = out.slice(out.indexOf('Time per spec file'))
  assert.ok(out.indexOf('Passed:') < out.indexOf('Time per spec file'), out)
  const files = [...timing.matchAll(/^\s+\d+\.\d s\s+(\S+)$/gm)].map((m) => m[1])
  assert.equal(files, ['slow.spec.ts', 'quick.spec.ts'])
  assert.match(timing, /Skipped for a missing service: 2 specs in 1 files \(PostgreSQL\): .*postgres\/db\.spec\.ts/)
  assert.not.match(timing, /^\s*(Passed|Total):/m, 'the report adds no line .ci/run would count')
})

test.run()
