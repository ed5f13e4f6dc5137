// Each layer says what it may import (issue 33 item 3): every folder of lib/, and reducers/,
// effects/ and web/, has a README.md whose "May import" line names the folders its modules may
// import from, and no module imports from a folder its README does not name. The README is the
// rule; this spec reads it, so a new arrow between layers is a change to the README, made on purpose.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, normalize, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'

const test = suite('tooling/layers')
const root = fileURLToPath(new URL('../../', import.meta.url))

/** The layer folders: each folder of lib/ (and lib/stores/file), reducers/, effects/, web/. */
const LAYERS = [
  ...readdirSync(join(root, 'lib')).filter((name) => statSync(join(root, 'lib', name)).isDirectory()).map((name) => `lib/${name}`),
  'lib/stores/file', 'reducers', 'effects', 'web',
].sort()

/** The layer a module belongs to: the deepest layer folder holding it, or null for lib/'s entry points. */
const layerOf = (file: string): string | null => {
  const path = relative(root, file)
  return LAYERS.filter((layer) => path.startsWith(`${layer}/`)).sort((a, b) => b.length - a.length)[0] ?? null
}

const modules = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? modules(path) : path.endsWith('.ts') ? [path] : []
  })

/** Each layer's imports of other layers, with one module that makes each. */
export const layerImports = (files: string[]): Map<string, Map<string, string>> => {
  const found = new Map<string, Map<string, string>>()
  for (const file of files) {
    const from = layerOf(file)
    if (!from) continue
    for (const [, spec] of readFileSync(file, 'utf8').matchAll(/^(?:import|export)\s[^'"]*?from\s+'(\.[^']+)'/gm)) {
      const to = layerOf(normalize(join(dirname(file), spec)))
      if (!to || to === from) continue
      if (!found.has(from)) found.set(from, new Map())
      found.get(from)!.has(to) || found.get(from)!.set(to, relative(root, file))
    }
  }
  return found
}

/** The folders a README's "May import" line names (`lib/core/`, ...); "nothing of agentlog" names none. */
export const mayImport = (readme: string): string[] | null => {
  const line = /^- \*\*May import\*\*: (.*)$/m.exec(readme)
  return line ? [...line[1].matchAll(/`([\w/]+)\/`/g)].map((m) => m[1]) : null
}

test('every layer folder has a README.md saying what it owns, what it may import and what imports it', () => {
  assert.ok(LAYERS.length >= 15, `${LAYERS.length} layers`)
  for (const layer of LAYERS) {
    const path = join(root, layer, 'README.md')
    assert.ok(existsSync(path), `${layer}/ has no README.md`)
    const readme = readFileSync(path, 'utf8')
    assert.ok(mayImport(readme), `${layer}/README.md has no "- **May import**:" line`)
    assert.match(readme, /^- \*\*Imported by\*\*: /m, `${layer}/README.md has no "- **Imported by**:" line`)
  }
})

test('no module imports from a layer its folder\'s README does not name', () => {
  const files = ['lib', 'reducers', 'effects', 'web'].flatMap((dir) => modules(join(root, dir)))
  const wrong: string[] = []
  for (const [from, targets] of layerImports(files)) {
    const allowed = mayImport(readFileSync(join(root, from, 'README.md'), 'utf8')) ?? []
    for (const [to, file] of targets) if (!allowed.includes(to)) wrong.push(`${file} imports ${to}/, which ${from}/README.md does not allow`)
  }
  assert.equal(wrong, [])
})

test('the README line is read as written', () => {
  assert.equal(mayImport('# x\n\n- **May import**: `lib/core/`, `reducers/`.\n'), ['lib/core', 'reducers'])
  assert.equal(mayImport('- **May import**: nothing of agentlog.\n'), [])
  assert.is(mayImport('no such line'), null)
})

test.run()
