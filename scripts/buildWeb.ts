// Builds the web page into dist/web: web/main.ts bundled with esbuild (Preact, htm, the remote
// client and the reducers, no CDN), beside index.html and app.css. `npm run build:web` runs it;
// the browser specs call `buildWeb()` so they always test the page as it is in the tree.
import { copyFile, mkdir } from 'node:fs/promises'
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build, type Plugin } from 'esbuild'

const root = fileURLToPath(new URL('..', import.meta.url))
export const WEB_OUT = `${root}dist/web`

// zod re-exports its ~50 locales as one namespace, which esbuild keeps whole (rollup shakes it):
// the page speaks English only, so the namespace is cut to `en` (about 260 kB less).
const englishOnly: Plugin = {
  name: 'zod-english-only',
  setup(b) {
    b.onResolve({ filter: /\/locales\/index\.js$/ }, (args) =>
      args.importer.includes('/node_modules/zod/') ? { path: resolve(args.resolveDir, args.path.replace(/index\.js$/, 'en.js')), namespace: 'zod-locales' } : undefined)
    b.onLoad({ filter: /.*/, namespace: 'zod-locales' }, (args) => ({ contents: `export { default as en } from ${JSON.stringify(args.path)}`, resolveDir: '/' }))
  },
}

export const buildWeb = async (outDir = WEB_OUT): Promise<void> => {
  await mkdir(outDir, { recursive: true })
  await build({
    entryPoints: [`${root}web/main.ts`],
    outfile: `${outDir}/app.js`,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    sourcemap: true,
    sourcesContent: true,
    legalComments: 'none',
    logLevel: 'warning',
    plugins: [englishOnly],
  })
  await copyFile(`${root}web/index.html`, `${outDir}/index.html`)
  await copyFile(`${root}web/app.css`, `${outDir}/app.css`)
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) void buildWeb()
