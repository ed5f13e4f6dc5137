// docs/redux.md cannot rot: each of its ```ts blocks is literally part of an example file, which
// spec/examples runs (examples/redux.ts, examples/reduxObservable.ts print what their headers expect).
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { blockParts, tsBlocks } from '../helpers/readme.js'

const test = suite('redux/docs')
const root = fileURLToPath(new URL('../../', import.meta.url))

test('every ```ts block of docs/redux.md is a complete example program in examples/', () => {
  const blocks = tsBlocks(readFileSync(`${root}docs/redux.md`, 'utf8'))
  assert.is(blocks.length, 2)
  const sources = ['redux.ts', 'reduxObservable.ts'].map((file) => readFileSync(`${root}examples/${file}`, 'utf8'))
  for (const block of blocks) {
    const { example, code } = blockParts(block)
    assert.is(example, null, 'a block of docs/redux.md is a whole program, not a part')
    assert.ok(code.startsWith('import '), code.slice(0, 80))
    assert.ok(sources.some((source) => source.endsWith(code)), `this block is not the code of examples/redux.ts or examples/reduxObservable.ts:\n${code.slice(0, 200)}`)
  }
})

test.run()
