// The package as users get it: `npm pack` (which builds dist/ first; spec/helpers/packed.ts), the tarball unpacked into the
// node_modules of an empty project in a temporary folder, its dependencies and its zod peer taken
// from this repository's node_modules (no network), then loaded from CommonJS `require` and from
// ESM `import`, a tool defined with the project's own zod, and the `agentlog` command run. The
// tarball ships no TypeScript sources, and every source map carries its sources.
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { packed, root } from '../helpers/packed.js'

const test = suite('package/pack')
let dir = ''
let project = ''
let files: string[] = []

test.before(async () => {
  const pack = await packed()
  dir = mkdtempSync(join(tmpdir(), 'agentlog-pack-project-'))
  files = pack.files
  project = join(dir, 'project')
  const modules = join(project, 'node_modules')
  mkdirSync(join(modules, '.unpacked'), { recursive: true })
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'user-project', version: '1.0.0', private: true }))
  execFileSync('tar', ['xzf', pack.tarball, '-C', join(modules, '.unpacked')])
  execFileSync('mv', [join(modules, '.unpacked', 'package'), join(modules, 'agentlog')])
  const manifest = JSON.parse(readFileSync(join(modules, 'agentlog', 'package.json'), 'utf8'))
  for (const name of [...Object.keys(manifest.dependencies), ...Object.keys(manifest.peerDependencies)]) {
    mkdirSync(join(modules, name, '..'), { recursive: true })
    symlinkSync(join(root, 'node_modules', name), join(modules, name), 'dir')
  }
})

test.after(() => {
  if (dir) rmSync(dir, { recursive: true, force: true })
})

const runIn = (file: string, source: string) => {
  writeFileSync(join(project, file), source)
  return spawnSync(process.execPath, [file], { cwd: project, encoding: 'utf8', timeout: 30_000 })
}

const program = (load: string) => `${load}
const echo = defineTool({ name: 'echo', description: 'echo', input: z.object({ text: z.string() }), execute: ({ text }) => 'echo: ' + text })
const model = scriptedModel([[...callTool('c1', 'echo', { text: 'hi' })], [...say('done')]])
const agent = createAgent({ name: 'a', model, tools: [echo] })
agent.reply('hello').then((reply) => {
  const result = agent.state.context.at(-1).content.find((b) => b.type === 'tool_result')
  console.log(JSON.stringify({ text: reply.text, tool: outputText(result.output), fileLog: typeof fileLog }))
})
`

test('the tarball holds the built code, the command, the licence, the README and the examples it points to; no other TypeScript sources, no specs', () => {
  for (const file of ['package.json', 'LICENSE', 'README.md', 'bin/agentlog.js', 'dist/lib/index.js', 'dist/lib/index.d.ts', 'dist/lib/node.js', 'dist/lib/redux.js', 'dist/lib/redux.d.ts', 'dist/lib/cli/main.js', 'examples/tour.ts', 'examples/support/print.ts'])
    assert.ok(files.includes(file), `missing ${file}`)
  assert.equal(files.filter((f) => /\.ts$/.test(f) && !f.endsWith('.d.ts') && !f.startsWith('examples/')), [])
  assert.equal(files.filter((f) => f.startsWith('spec/') || f.startsWith('dist/spec') || f.startsWith('dist/examples')), [])
})

test('require() from a CommonJS project loads agentlog and agentlog/node, with a tool on the project\'s zod', () => {
  const run = runIn('main.cjs', program(`const { createAgent, defineTool, outputText, scriptedModel, say, callTool } = require('agentlog')
const { fileLog } = require('agentlog/node')
const { z } = require('zod')`))
  assert.is(run.status, 0, run.stderr)
  assert.equal(JSON.parse(run.stdout), { text: 'done', tool: 'echo: hi', fileLog: 'function' })
})

test('import from an ES module project loads agentlog and agentlog/node', () => {
  const run = runIn('main.mjs', program(`import { createAgent, defineTool, outputText, scriptedModel, say, callTool } from 'agentlog'
import { fileLog } from 'agentlog/node'
import { z } from 'zod'`))
  assert.is(run.status, 0, run.stderr)
  assert.equal(JSON.parse(run.stdout), { text: 'done', tool: 'echo: hi', fileLog: 'function' })
})

test('agentlog/redux from the package: a plain redux store with the agents slice and middleware holds the agent\'s state', () => {
  const run = runIn('redux.mjs', `import { createAgent, scriptedModel, say } from 'agentlog'
import { agentActions, agentsMiddleware, agentsReducer, selectSession } from 'agentlog/redux'
import { applyMiddleware, combineReducers, legacy_createStore } from 'redux'
const agent = createAgent({ name: 'a', model: scriptedModel([say('hi there', 3)]) })
const store = legacy_createStore(combineReducers({ agents: agentsReducer }), applyMiddleware(agentsMiddleware({ agents: { s: agent } })))
store.dispatch(agentActions.send({ session_id: 's', input: 'hello' }))
const unsubscribe = store.subscribe(() => {
  const s = selectSession(store.getState().agents, 's')
  if (s?.status !== 'idle' || s.seq === 0) return
  unsubscribe()
  console.log(JSON.stringify({ same: JSON.stringify(s) === JSON.stringify(agent.state), seq: s.seq === agent.log.length }))
})`)
  assert.is(run.status, 0, run.stderr)
  assert.equal(JSON.parse(run.stdout), { same: true, seq: true })
})

test('the installed command runs from the built code: --version and --help', () => {
  const bin = join(project, 'node_modules', 'agentlog', 'bin', 'agentlog.js')
  const version = spawnSync(process.execPath, [bin, '--version'], { cwd: project, encoding: 'utf8' })
  assert.is(version.status, 0, version.stderr)
  assert.is(version.stdout.trim(), JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version)
  const help = spawnSync(process.execPath, [bin, '--help'], { cwd: project, encoding: 'utf8' })
  assert.is(help.status, 0, help.stderr)
  assert.match(help.stdout, /chat/)
})

test('every source map in the package carries the sources it names', () => {
  const maps = files.filter((f) => f.endsWith('.map'))
  assert.ok(maps.length > 20, `${maps.length} maps`)
  for (const file of maps) {
    const map = JSON.parse(readFileSync(join(project, 'node_modules', 'agentlog', file), 'utf8'))
    assert.is(map.sourcesContent?.length, map.sources.length, `${file} has no sourcesContent`)
    assert.ok(map.sourcesContent.every((s: unknown) => typeof s === 'string' && s.length > 0), `${file} has an empty source`)
  }
})

test('a zod 3 schema is refused with a message that asks for zod 4', () => {
  const run = runIn('zod3.mjs', `import { defineTool } from 'agentlog'
import { z } from 'zod/v3'
try { defineTool({ name: 't', description: 't', input: z.object({}), execute: () => '' }) } catch (e) { console.log(e.code + ': ' + e.message) }`)
  assert.is(run.status, 0, run.stderr)
  assert.match(run.stdout, /^INVALID_OPTION: .*zod 3 schema; agentlog needs zod 4.*import \{ z \} from 'zod'/)
})

test.run()
