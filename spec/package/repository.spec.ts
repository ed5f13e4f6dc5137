// What a clone and the package promise (issue 10 items 1, 3, 13): the repository is self-contained
// (nothing under spec/, bench/, scripts/ or examples/ reaches outside it); the LICENSE matches
// package.json; the README says what the package is; zod is a peer dependency; and the main entry
// runs in a browser: its import graph reaches no `node:` module and no package beyond the runtime
// dependencies.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'

const test = suite('package/repository')
const root = fileURLToPath(new URL('../../', import.meta.url))
const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'))

const filesUnder = (dir: string): string[] => readdirSync(path.join(root, dir)).flatMap((name) => {
  const rel = path.join(dir, name)
  return statSync(path.join(root, rel)).isDirectory() ? filesUnder(rel) : [rel]
})

test('nothing under spec/, bench/, scripts/ or examples/ names a path outside the repository', () => {
  const escapes: string[] = []
  for (const file of ['spec', 'bench', 'scripts', 'examples'].flatMap(filesUnder).filter((f) => /\.(ts|js|mjs|json)$/.test(f))) {
    const text = readFileSync(path.join(root, file), 'utf8')
    for (const [literal] of text.matchAll(/(?:\.\.\/)+[\w.-][\w./-]*/g)) {
      const target = path.resolve(root, path.dirname(file), literal)
      if (!`${target}${path.sep}`.startsWith(root)) escapes.push(`${file}: ${literal}`)
    }
    if (/['"`]\/work\/|shared\/reference/.test(text)) escapes.push(`${file}: an absolute path or the shared reference folder`)
  }
  assert.equal(escapes, [])
})

test('LICENSE exists and is the licence package.json names, and the package ships it', () => {
  const licence = readFileSync(path.join(root, 'LICENSE'), 'utf8')
  assert.is(manifest.license, 'MIT')
  assert.match(licence, /^MIT License/)
  assert.ok(manifest.files.includes('LICENSE'))
})

test('the README says what the package is: ESM, Node 20+, the main entry in browsers, what agentlog/node adds, zod as a peer', () => {
  const readme = readFileSync(path.join(root, 'README.md'), 'utf8')
  const what = readme.slice(readme.indexOf('## Install'), readme.indexOf('## A tour'))
  for (const claim of [/ES module for Node 20\+/, /require\('agentlog'\)/, /runs in browsers/, /`agentlog\/node`.*fileLog/s, /zod 4 is a peer dependency/, /zod 3\.25 does not work/, /MIT/])
    assert.match(what, claim)
  assert.is(manifest.type, 'module')
  assert.is(manifest.engines.node, '>=20')
})

test('zod is a peer dependency (^4) and a dev dependency, not a dependency; every export has a default condition', () => {
  assert.is(manifest.peerDependencies.zod, '^4.0.0')
  assert.is(manifest.dependencies.zod, undefined)
  assert.ok(manifest.devDependencies.zod)
  for (const [entry, conditions] of Object.entries<Record<string, string> | string>(manifest.exports)) {
    if (typeof conditions === 'string') continue
    assert.ok(conditions.default, `${entry} has no default condition (require() from CommonJS)`)
  }
})

test('the main entry\'s import graph reaches no node: module and only the runtime dependencies', () => {
  const allowed = new Set([...Object.keys(manifest.dependencies), ...Object.keys(manifest.peerDependencies)])
  const seen = new Set<string>()
  const problems: string[] = []
  const visit = (file: string) => {
    if (seen.has(file)) return
    seen.add(file)
    const text = readFileSync(file, 'utf8')
    for (const [, spec] of text.matchAll(/^(?:import|export)\s[^'"]*?from\s+'([^']+)'/gm)) {
      if (spec.startsWith('.')) visit(path.resolve(path.dirname(file), spec.replace(/\.js$/, '.ts')))
      else if (spec.startsWith('node:')) problems.push(`${path.relative(root, file)} imports ${spec}`)
      else if (!allowed.has(spec.split('/')[0])) problems.push(`${path.relative(root, file)} imports ${spec}`)
    }
  }
  visit(path.join(root, 'lib/index.ts'))
  assert.ok(seen.size > 20, `${seen.size} modules`)
  assert.equal(problems, [])
})

test.run()
