// The house keeps its shape (issue 33): no file over 300 lines in lib/, reducers/, effects/ and web/
// (split a module along its seams instead), and lib/'s root holds only the entry points that
// package.json "exports" names (a new module goes in the folder of its layer). The checks run on
// the repository, and on a fixture that breaks both rules, so they can fail.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'

const test = suite('tooling/house')
const root = fileURLToPath(new URL('../../', import.meta.url))
const fixture = join(root, 'spec/tooling/fixtures/house')
export const MAX_LINES = 300

const filesUnder = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? filesUnder(path) : [path]
  })

const linesOf = (file: string) => readFileSync(file, 'utf8').replace(/\n$/, '').split('\n').length

/** The files of `dirs` (under `base`) longer than MAX_LINES, each with its length. */
export const longFiles = (base: string, dirs: string[]): string[] =>
  dirs.flatMap((dir) => filesUnder(join(base, dir)))
    .filter((file) => !/\.(png|jpe?g|gif|ico|woff2?)$/.test(file))
    .flatMap((file) => {
      const lines = linesOf(file)
      return lines > MAX_LINES ? [`${relative(base, file)} (${lines} lines)`] : []
    })

/** The source files an "exports" map points at in lib/'s root (./dist/lib/X.js is lib/X.ts). */
const entryPoints = (manifest: { exports: Record<string, unknown> }): Set<string> => {
  const targets = Object.values(manifest.exports).flatMap((target) =>
    typeof target === 'string' ? [target] : Object.values(target as Record<string, string>))
  return new Set(targets.flatMap((target) => {
    const found = /^\.\/dist\/lib\/([^/]+)\.(?:js|d\.ts)$/.exec(target)
    return found ? [`${found[1]}.ts`] : []
  }))
}

/** The files in lib/'s root that are not an entry point of the manifest. */
export const looseFiles = (base: string, manifest: { exports: Record<string, unknown> }): string[] => {
  const entries = entryPoints(manifest)
  return readdirSync(join(base, 'lib'))
    .filter((name) => statSync(join(base, 'lib', name)).isFile() && !entries.has(name))
    .map((name) => `lib/${name}`)
}

test(`no file over ${MAX_LINES} lines in lib/, reducers/, effects/ or web/`, () => {
  assert.equal(longFiles(root, ['lib', 'reducers', 'effects', 'web']), [])
})

test('lib/\'s root holds only the entry points package.json "exports" names', () => {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
  assert.ok(entryPoints(manifest).has('index.ts'), 'the main entry is lib/index.ts')
  assert.equal(looseFiles(root, manifest), [])
})

test('the checks notice a long file and a loose file (a fixture that breaks both rules)', () => {
  const manifest = JSON.parse(readFileSync(join(fixture, 'manifest.json'), 'utf8'))
  assert.equal(longFiles(fixture, ['lib']), ['lib/core/long.ts (301 lines)'])
  assert.equal(looseFiles(fixture, manifest), ['lib/loose.ts'])
})

test.run()
