// The main entry runs in a browser: no module it imports, directly or through others, imports a
// `node:` built-in (the server's fetch handler and the remote client included; listen() and the file
// log live behind agentlog/node).
import { readFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'

const test = suite('lib/browserSafe')
const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|(?:^|\n)\s*import\s+['"]([^'"]+)['"]/g

/** Every relative module reachable by static imports from `entry`, with the bare specifiers each imports. */
const graph = (entry: string) => {
  const seen = new Map<string, string[]>()
  const visit = (file: string) => {
    if (seen.has(file)) return
    const source = readFileSync(file, 'utf8')
    const specifiers = [...source.matchAll(IMPORT)].map((m) => m[1] ?? m[2])
    seen.set(file, specifiers.filter((s) => !s.startsWith('.')))
    for (const s of specifiers) if (s.startsWith('.')) visit(resolve(dirname(file), s.replace(/\.js$/, '.ts')))
  }
  visit(entry)
  return seen
}

test('nothing the main entry imports uses a node: built-in', () => {
  const modules = graph(fileURLToPath(new URL('../../lib/index.ts', import.meta.url)))
  assert.ok([...modules.keys()].some((f) => f.endsWith('server/index.ts')) && [...modules.keys()].some((f) => f.endsWith('client/remoteAgent.ts')), 'the server and the client are in the main entry')
  const offenders = [...modules].flatMap(([file, specifiers]) => specifiers.filter((s) => s.startsWith('node:')).map((s) => `${file}: ${s}`))
  assert.equal(offenders, [])
})

test('the check sees a node: import where there is one (agentlog/node)', () => {
  const modules = graph(fileURLToPath(new URL('../../lib/node.ts', import.meta.url)))
  assert.ok([...modules.values()].some((specifiers) => specifiers.includes('node:http')))
})

test.run()
