// Reading the README's code and the examples' headers, for the specs that run them
// (spec/examples, spec/package/readme).

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
