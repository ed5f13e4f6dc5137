// Builds the web page into dist/web: web/main.ts bundled with esbuild (Preact, htm, the remote
// client and the reducers, no CDN), beside index.html and app.css. `npm run build:web` runs it;
// the browser specs call `buildWeb()` so they always test the page as it is in the tree.
import { copyFile, mkdir } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const root = fileURLToPath(new URL('..', import.meta.url))
export const WEB_OUT = `${root}dist/web`

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
    legalComments: 'none',
    logLevel: 'warning',
  })
  await copyFile(`${root}web/index.html`, `${outDir}/index.html`)
  await copyFile(`${root}web/app.css`, `${outDir}/app.css`)
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await buildWeb()
