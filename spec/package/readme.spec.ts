// The README and docs/ are a set of programs (issue 22 items 6, 8, 9; issue 33 items 5, 6): the
// packed tarball is installed with zod and rxjs into a new ES module project (npm, from the local
// cache where it can), and there every ```ts block that is a complete program runs as written, and
// every example a block names as its complete program runs too, from the package's own examples/. The optional peers the README asks for (pg, the MCP SDK, OpenTelemetry,
// NATS) come from this repository. Also: every package a block imports is one the project declares; the tarball has no
// `prepare` script; `agentlog serve --agent ./agent.ts` from the installed package loads TypeScript
// through the project's tsx, and says in one line what to do when the project has none.
import { execFile, spawn } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { blockParts, documents, expectations, tsBlocks } from '../helpers/readme.js'
import { remoteAgent } from '../../lib/index.js'
import { npm, packed, root } from '../helpers/packed.js'
import { NATS_URL, natsAvailable } from '../nats/helpers/server.js'
import { DATABASE_URL, postgresAvailable } from '../postgres/helpers/db.js'

const test = suite('package/readme')
const tsx = join(root, 'node_modules/tsx/dist/cli.mjs')
const readme = readFileSync(join(root, 'README.md'), 'utf8')
const blocks = documents(root).flatMap((page) => tsBlocks(page.text)).map(blockParts)
const repoManifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
/** Optional peers and tools the README asks a reader to install, taken from this repository. */
const FROM_REPOSITORY = ['pg', '@reduxjs/toolkit', 'redux', 'redux-observable', '@a2a-js/sdk', '@modelcontextprotocol/sdk', '@modelcontextprotocol/server-everything', ...Object.keys(repoManifest.devDependencies).filter((name) => /^@(opentelemetry|nats-io)\//.test(name))]
let project = ''
let tarball = ''
const outcomes = new Map<string, Promise<Outcome>>()

const complete = blocks.filter((b) => b.example === null)
const named = [...new Set(blocks.flatMap((b) => (b.example ? [b.example] : [])))]
/** A block that needs a service (PostgreSQL, NATS) runs only where it is up; the skip is noted like the services' own specs. */
const needsDatabase = (code: string) => code.includes("from 'pg'")
const needsNats = (code: string) => code.includes("from 'agentlog/nats'")
const database = complete.some((b) => needsDatabase(b.code)) ? postgresAvailable('spec/package/readme.spec.ts') : true
const nats = complete.some((b) => needsNats(b.code)) ? natsAvailable('spec/package/readme.spec.ts') : true
const runnable = (code: string) => (!needsDatabase(code) || database) && (!needsNats(code) || nats)

interface Outcome { code: number | null; stdout: string; stderr: string }

const run = (args: string[], env: Record<string, string> = {}, ms = 60_000): Promise<Outcome> => new Promise((resolve) => {
  const child = spawn(process.execPath, args, {
    cwd: project,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NO_COLOR: '1', DATABASE_URL, NATS_URL, ...env },
  })
  const outcome: Outcome = { code: null, stdout: '', stderr: '' }
  child.stdout.on('data', (d) => (outcome.stdout += d))
  child.stderr.on('data', (d) => (outcome.stderr += d))
  const timer = setTimeout(() => child.kill('SIGKILL'), ms)
  child.on('close', (code) => {
    clearTimeout(timer)
    resolve({ ...outcome, code })
  })
})
const report = ({ code, stdout, stderr }: Outcome) => `exit code ${code}\n--- stdout ---\n${stdout.slice(-2000)}\n--- stderr ---\n${stderr.slice(-2000)}`

test.before(async () => {
  const pack = await packed()
  tarball = pack.tarball
  project = mkdtempSync(join(pack.dir, 'readme-project-'))
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'readme-reader', version: '1.0.0', private: true, type: 'module' }))
  const versions = { ...repoManifest.dependencies, ...repoManifest.devDependencies }
  await promisify(execFile)(npm, ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', tarball, `zod@${versions.zod}`, `rxjs@${versions.rxjs}`], { cwd: project, maxBuffer: 16 << 20 })
  const manifest = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8'))
  for (const name of FROM_REPOSITORY) {
    mkdirSync(join(project, 'node_modules', name, '..'), { recursive: true })
    symlinkSync(join(root, 'node_modules', name), join(project, 'node_modules', name), 'dir')
    manifest.dependencies[name] = versions[name]
  }
  writeFileSync(join(project, 'package.json'), JSON.stringify(manifest, null, 2))
  // Every program starts now, two at a time (the machine's cores); the tests below await theirs.
  const lanes: Promise<unknown>[] = [Promise.resolve(), Promise.resolve()]
  const programs: [string, () => void][] = [
    ...complete.map((block, i): [string, () => void] => [`readme-${i + 1}.ts`, () => writeFileSync(join(project, `readme-${i + 1}.ts`), block.code)]),
    ...named.map((example): [string, () => void] => [example, () => {}]),
  ]
  programs.forEach(([file, write], i) => {
    if (file.startsWith('readme-') && !runnable(complete[Number(file.slice(7, -3)) - 1].code)) return
    write()
    // A named example runs from the installed package, where the reader finds it.
    const path = file.startsWith('readme-') ? file : join('node_modules', 'agentlog', file)
    const outcome = lanes[i % 2].then(() => run([tsx, path]))
    lanes[i % 2] = outcome
    outcomes.set(file, outcome)
  })
})

test('the packed package has no prepare script; sessions/ is ignored by git; the docs name @types/pg beside pg', () => {
  const manifest = JSON.parse(readFileSync(join(project, 'node_modules', 'agentlog', 'package.json'), 'utf8'))
  assert.is(manifest.scripts?.prepare, undefined)
  assert.ok(readFileSync(join(root, '.gitignore'), 'utf8').split('\n').includes('sessions/'))
  assert.match(documents(root).map((page) => page.text).join('\n'), /npm install pg.*@types\/pg/s)
})

test('the README says up front that the package is an ES module, and what a CommonJS project does', () => {
  const upFront = readme.slice(0, readme.indexOf('## A tour'))
  assert.match(upFront, '"type": "module"')
  assert.match(upFront, /CommonJS project/)
})

test('every package a README block imports is declared by the project (or is Node\'s own)', () => {
  const declared = Object.keys(JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')).dependencies)
  const imported = blocks.flatMap(({ code }) => [...code.matchAll(/^import .* from '([^']+)'/gm)].map((m) => m[1]))
  assert.ok(imported.length > 5, `${imported.length} imports`)
  for (const specifier of imported) {
    if (specifier.startsWith('node:')) continue
    const name = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]
    assert.ok(declared.includes(name), `a README block imports ${specifier}, which the project does not declare (${declared.join(', ')})`)
  }
})

test('the README\'s tour is complete programs; docs/ names complete examples for its fragments, and they ship in the package', () => {
  const tour = tsBlocks(readme.slice(readme.indexOf('## A tour'))).map(blockParts)
  assert.ok(tour.length >= 6, `${tour.length} blocks in the tour`)
  assert.equal(tour.filter((b) => b.example !== null).map((b) => b.code.split('\n')[0]), [], 'the tour has no fragments')
  assert.ok(complete.length >= 5, `${complete.length} complete blocks`)
  for (const example of named) assert.ok(existsSync(join(project, 'node_modules', 'agentlog', example)), `${example} is not in the package`)
  assert.ok(named.length >= 5, `${named.length} named examples`)
  for (const block of complete) assert.match(block.code, /^import /m, `a complete program imports what it uses:\n${block.code}`)
})

complete.forEach((block, i) => {
  test(`README block ${i + 1} of the complete programs runs as written (${block.code.split('\n')[0].slice(0, 60)}…)`, async () => {
    if (!runnable(block.code)) return
    const outcome = await outcomes.get(`readme-${i + 1}.ts`)!
    assert.is(outcome.code, 0, `${report(outcome)}\n--- the block ---\n${block.code}`)
    assert.ok(outcome.stdout.trim().length > 0, `printed nothing\n${report(outcome)}`)
  })
})

for (const example of named) {
  test(`${example}, which README blocks are part of, runs in the project and prints what it expects`, async () => {
    const source = readFileSync(join(root, example), 'utf8')
    const outcome = await outcomes.get(example)!
    assert.is(outcome.code, 0, report(outcome))
    for (const line of expectations(source)) assert.ok(outcome.stdout.includes(line), `did not print "${line}"\n${report(outcome)}`)
  })
}

test('the README\'s own example command runs from the installed package: npx tsx node_modules/agentlog/examples/tour.ts', async () => {
  assert.match(readme, 'npx tsx node_modules/agentlog/examples/tour.ts')
  const outcome = await run([tsx, join('node_modules', 'agentlog', 'examples', 'tour.ts')])
  assert.is(outcome.code, 0, report(outcome))
  for (const line of expectations(readFileSync(join(root, 'examples', 'tour.ts'), 'utf8'))) assert.ok(outcome.stdout.includes(line), `did not print "${line}"\n${report(outcome)}`)
})

test('agentlog serve --agent ./agent.ts from the installed package: one line saying what to do without tsx; served through the project\'s tsx, with an approval, a sub-agent and a Stop', async () => {
  copyFileSync(join(root, 'examples', 'agent.ts'), join(project, 'agent.ts'))
  const bin = join(project, 'node_modules', 'agentlog', 'bin', 'agentlog.js')
  const without = await run([bin, 'serve', '--agent', './agent.ts', '--port', '0', '--store', './no-sessions'], {}, 30_000)
  assert.is(without.code, 1, report(without))
  assert.is(without.stderr.trim().split('\n').length, 1, `one line:\n${without.stderr}`)
  assert.match(without.stderr, /agent\.ts is TypeScript.*npm install --save-dev tsx.*\.mjs/)
  assert.not.ok(existsSync(join(project, 'no-sessions')), 'nothing was created')

  symlinkSync(join(root, 'node_modules', 'tsx'), join(project, 'node_modules', 'tsx'), 'dir')
  const child = spawn(process.execPath, [bin, 'serve', '--agent', './agent.ts', '--port', '0', '--store', './sessions'], { cwd: project, env: { PATH: process.env.PATH ?? '' } })
  let out = ''
  let err = ''
  child.stderr.on('data', (d) => (err += d))
  try {
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (d) => {
        out += d
        const found = /listening on (http:\/\/\S+)/.exec(out)
        if (found) resolve(found[1])
      })
      child.on('exit', () => reject(new Error(`serve exited: ${out}${err}`)))
    })
    const { session_id } = (await (await fetch(`${url}/sessions`, { method: 'POST' })).json()) as { session_id: string }
    const { tools } = (await (await fetch(`${url}/sessions/${session_id}/tools`)).json()) as { tools: { name: string }[] }
    assert.equal(tools.map((t) => t.name), ['delete_file', 'research'])
    // The tour's last step, as a newcomer does it on the page: an approval, a sub-agent, a Stop.
    const remote = remoteAgent({ url, session: session_id })
    const paused = await remote.reply('hi')
    assert.equal(paused.waiting_for.map((c) => c.name), ['delete_file'])
    const approved = remote.approve(paused.waiting_for[0].id)
    for (let tries = 0; tries < 200; tries++) {
      const { items } = (await (await fetch(`${url}/sessions/${session_id}/children`)).json()) as { items: { status: string }[] }
      if (items.some((c) => c.status === 'running')) break
      await new Promise((r) => setTimeout(r, 50))
    }
    await remote.interrupt()
    const stopped = await approved
    assert.is(stopped.finished_reason, 'interrupted')
    const { items } = (await (await fetch(`${url}/sessions/${session_id}/children`)).json()) as { items: { status: string }[] }
    assert.equal(items.map((c) => c.status), ['idle'], 'the sub-agent stopped with its root')
    remote.close()
  } finally {
    child.kill('SIGTERM')
  }
})

test.run()
