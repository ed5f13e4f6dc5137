// The README and docs/ read as a guide (issue 33 item 5): every relative link names a file or a
// heading that exists, and no parenthesis sits inside another in the prose (code is left out).
import { existsSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { documents } from '../helpers/readme.js'

const test = suite('package/docs')
const root = fileURLToPath(new URL('../../', import.meta.url))

/** The prose of a markdown text: fenced blocks and inline code left out. */
export const prose = (markdown: string): string => {
  let inside = false
  return markdown.split('\n').filter((line) => (line.startsWith('```') ? ((inside = !inside), false) : !inside)).join('\n').replace(/`[^`\n]*`/g, 'CODE')
}

/** The paragraphs of a text in which a parenthesis opens inside another. */
export const nestedParentheses = (text: string): string[] =>
  prose(text).replace(/\]\([^)]*\)/g, ']').split(/\n\s*\n/).filter((paragraph) => {
    let depth = 0
    for (const ch of paragraph) {
      if (ch === '(' && ++depth >= 2) return true
      if (ch === ')') depth = Math.max(0, depth - 1)
    }
    return false
  })

/** GitHub's anchor of a heading. */
const anchor = (heading: string) => heading.trim().toLowerCase().replace(/[^\w\- ]/g, '').replace(/ /g, '-')

test('every relative link of the README and docs/ names a file that exists, and a heading that exists', () => {
  const pages = documents(root)
  const broken: string[] = []
  for (const page of pages) {
    for (const [, target] of prose(page.text).matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target)) continue
      const [path, hash] = target.split('#')
      const file = path ? relative(root, join(root, dirname(page.file), path)) : page.file
      if (!existsSync(join(root, file))) broken.push(`${page.file} links to ${target}, which does not exist`)
      else if (hash && file.endsWith('.md')) {
        const text = pages.find((p) => p.file === file)?.text ?? ''
        const anchors = [...text.matchAll(/^#{1,6} (.*)$/gm)].map((m) => anchor(m[1]))
        if (!anchors.includes(hash)) broken.push(`${page.file} links to ${target}: no such heading`)
      }
    }
  }
  assert.equal(broken, [])
})

test('no parenthesis inside a parenthesis in the prose of the README and docs/', () => {
  const found = documents(root).flatMap((page) => nestedParentheses(page.text).map((p) => `${page.file}: ${p.slice(0, 200)}`))
  assert.equal(found, [])
})

test('the checks notice a nested parenthesis, and leave code alone', () => {
  assert.equal(nestedParentheses('a (b (c) d) e\n\nf (g) h'), ['a (b (c) d) e'])
  assert.equal(nestedParentheses('a (`f(x)`) b\n\n```ts\nf((x))\n```\n'), [])
  assert.is(anchor('7. Your agent, served with its web page'), '7-your-agent-served-with-its-web-page')
})

test.run()
