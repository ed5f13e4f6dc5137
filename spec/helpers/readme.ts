// Reading the code of the README and of docs/, and the examples' headers, for the specs that run
// them (spec/examples, spec/package/readme).
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'

/** README.md and every markdown page under docs/ (its decisions included), each with its path. */
export const documents = (root: string): { file: string; text: string }[] => {
  const pages = (dir: string): string[] => readdirSync(dir).sort().flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? pages(path) : name.endsWith('.md') ? [path] : []
  })
  return [join(root, 'README.md'), ...pages(join(root, 'docs'))].map((path) => ({ file: relative(root, path), text: readFileSync(path, 'utf8') }))
}

/** The `// expect: TEXT` lines of an example's header. */
export const expectations = (text: string): string[] => [...text.matchAll(/^\/\/ expect: (.*)$/gm)].map((m) => m[1])

/** The ```ts blocks of a markdown text. */
export const tsBlocks = (markdown: string): string[] => [...markdown.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1])

/** A block's first line `// (part of examples/NAME.ts, …)`: the complete example it is a fragment of. */
const PART = /^\/\/ \(part of (examples\/[\w.-]+\.ts)\b.*\n/

/** The example file a README block names as its complete program (null: the block is a complete program), and its code. */
export const blockParts = (block: string): { example: string | null; code: string } => {
  const named = PART.exec(block)
  return named ? { example: named[1], code: block.slice(named[0].length) } : { example: null, code: block }
}
