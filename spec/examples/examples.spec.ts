// Every example runs, and the README cannot rot. Each top-level examples/*.ts file is run as a user
// would run it (`npx tsx examples/NAME.ts`, a child process, no API keys, no colour) and must exit 0,
// print something, and print every line its header declares with `// expect: TEXT` (a substring of
// its stdout). Helpers for examples live in examples/support/ and are not run. Each ```ts block of
// README.md and of docs/ must be literally part of an example file, so every snippet a reader copies runs here.
import { spawn } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { blockParts, documents, expectations, tsBlocks } from '../helpers/readme.js'
import { buildWeb } from '../../scripts/buildWeb.js'

const test = suite('examples')
const root = fileURLToPath(new URL('../../', import.meta.url))
const tsx = fileURLToPath(new URL('../../node_modules/tsx/dist/cli.mjs', import.meta.url))
const examples = readdirSync(`${root}examples`).filter((f) => f.endsWith('.ts')).sort()
const source = (file: string) => readFileSync(`${root}examples/${file}`, 'utf8')

interface Outcome { code: number | null; stdout: string; stderr: string }

const runExample = (file: string): Promise<Outcome> => new Promise((resolve) => {
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NO_COLOR: '1' }
  const child = spawn(process.execPath, [tsx, `examples/${file}`], { cwd: root, env })
  const outcome: Outcome = { code: null, stdout: '', stderr: '' }
  child.stdout.on('data', (d) => (outcome.stdout += d))
  child.stderr.on('data', (d) => (outcome.stderr += d))
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000)
  child.on('close', (code) => {
    clearTimeout(timer)
    resolve({ ...outcome, code })
  })
})

// Two at a time (the machine's cores), started once and awaited by the tests, after the web page is
// built (examples/webPage.ts serves it; a fresh clone has no dist/web until something builds it).
const outcomes = new Map<string, Promise<Outcome>>()
const built = buildWeb()
let chain: Promise<unknown>[] = [built, built]
examples.forEach((file, i) => {
  const lane = i % chain.length
  const run = chain[lane].then(() => runExample(file))
  chain[lane] = run
  outcomes.set(file, run)
})

test('the examples folder holds the README\'s examples and more', () => {
  for (const name of ['demo.ts', 'tour.ts', 'approval.ts', 'external.ts', 'log.ts', 'rxjs.ts', 'models.ts', 'durable.ts', 'two-process.ts'])
    assert.ok(examples.includes(name), `examples/${name} is missing`)
})

for (const file of examples) {
  test(`examples/${file} exits 0 and prints what its header expects`, async () => {
    const { code, stdout, stderr } = await outcomes.get(file)!
    const context = `\n--- stdout ---\n${stdout.slice(-3000)}\n--- stderr ---\n${stderr.slice(-3000)}`
    assert.is(code, 0, `exit code ${code}${context}`)
    assert.ok(stdout.trim().length > 0, `printed nothing${context}`)
    for (const line of expectations(source(file))) assert.ok(stdout.includes(line), `did not print "${line}"${context}`)
  })
}

test('every ```ts block of README.md and of docs/ is literally part of an example file', () => {
  const pages = documents(root)
  assert.ok(pages.length > 5, `read ${pages.length} pages`)
  assert.ok(tsBlocks(pages[0].text).length >= 5, `found ${tsBlocks(pages[0].text).length} ts blocks in the README`)
  const sources = examples.map((file) => ({ file, text: source(file) }))
  for (const page of pages) for (const block of tsBlocks(page.text)) {
    const { example, code } = blockParts(block)
    const home = example ? sources.find((s) => `examples/${s.file}` === example) : sources.find((s) => s.text.includes(code))
    assert.ok(home, `this block of ${page.file} is in no example file:\n${block}`)
    assert.ok(home.text.includes(code), `this block of ${page.file} is not part of ${example}:\n${block}`)
  }
})

test('every ```ts block of docs/*.md is literally part of an example file', () => {
  const sources = examples.map((file) => ({ file, text: source(file) }))
  const docs = readdirSync(`${root}docs`).filter((f) => f.endsWith('.md'))
  for (const doc of docs) {
    for (const block of tsBlocks(readFileSync(`${root}docs/${doc}`, 'utf8'))) {
      const { example, code } = blockParts(block)
      const home = example ? sources.find((s) => `examples/${s.file}` === example) : sources.find((s) => s.text.includes(code))
      assert.ok(home, `this block of docs/${doc} is in no example file:\n${block}`)
      assert.ok(home.text.includes(code), `this block of docs/${doc} is not part of ${example}:\n${block}`)
    }
  }
})

test('the README check notices a block that is in no example', () => {
  const blocks = tsBlocks('text\n```ts\nconst x = 1\n```\nmore\n```sh\nls\n```\n')
  assert.equal(blocks, ['const x = 1\n'])
  assert.not.ok(examples.some((file) => source(file).includes('const x = 1\n')))
  assert.equal(expectations('// expect: a b\nconst y = 2\n// expect: c\n'), ['a b', 'c'])
  assert.equal(blockParts('// (part of examples/tour.ts, a complete program)\nconst x = 1\n'), { example: 'examples/tour.ts', code: 'const x = 1\n' })
  assert.equal(blockParts('import x from "y"\n'), { example: null, code: 'import x from "y"\n' })
})

test.run()
