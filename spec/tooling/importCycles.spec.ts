// The modules of lib/, reducers/ and effects/ import one another without a circle, type-only
// imports included (a circle of types still ties two modules into one): the relative imports and
// re-exports of every module are read from its source and searched depth first for a cycle.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, normalize, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'

const test = suite('tooling/importCycles')
const root = fileURLToPath(new URL('../../', import.meta.url))

const modules = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? modules(path) : path.endsWith('.ts') ? [path] : []
  })

/** The modules `file` imports or re-exports by a relative path. */
const importsOf = (file: string): string[] => {
  const source = readFileSync(file, 'utf8')
  return [...source.matchAll(/^(?:import|export)\s[^'"]*?from\s+'(\.[^']+)'/gm)].flatMap(([, spec]) => {
    const target = normalize(join(dirname(file), spec)).replace(/\.js$/, '.ts')
    return existsSync(target) ? [target] : []
  })
}

/** Every import cycle, as the modules along it (relative to the project). */
export const importCycles = (files: string[]): string[][] => {
  const graph = new Map(files.map((file) => [file, importsOf(file)]))
  const done = new Set<string>()
  const path: string[] = []
  const cycles: string[][] = []
  const visit = (file: string) => {
    const at = path.indexOf(file)
    if (at >= 0) return void cycles.push([...path.slice(at), file].map((f) => relative(root, f)))
    if (done.has(file)) return
    path.push(file)
    for (const next of graph.get(file) ?? []) visit(next)
    path.pop()
    done.add(file)
  }
  for (const file of files) visit(file)
  return cycles
}

test('lib/, reducers/ and effects/ have no import cycle', () => {
  const files = ['lib', 'reducers', 'effects'].flatMap((dir) => modules(join(root, dir)))
  assert.ok(files.length > 100, `read ${files.length} modules`)
  assert.equal(importCycles(files), [])
})

test('a cycle is found, type-only imports and re-exports included', () => {
  const dir = join(root, 'spec/tooling/fixtures/cycle')
  const files = modules(dir)
  assert.equal(importCycles(files).map((cycle) => cycle.map((f) => f.split('/').pop())), [['a.ts', 'b.ts', 'c.ts', 'a.ts']])
})

test.run()
