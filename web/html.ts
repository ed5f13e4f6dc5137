// The page's one way to write markup: htm tagged templates bound to Preact's `h` (no JSX, no
// compiler step beyond bundling).
import { h } from 'preact'
import htmModule from 'htm'

// htm's types are written for CommonJS, so under NodeNext TypeScript sees its ES default export as
// the module object; at run time (esbuild, Node's ESM) the default import is the function itself.
const htm = htmModule as unknown as typeof htmModule.default

export const html = htm.bind(h)
