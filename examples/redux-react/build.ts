// Builds the page into dist/examples/redux-react (index.html, app.css, app.js): main.ts bundled with
// esbuild, as scripts/buildWeb.ts builds the project's own page.
import { copyFile, mkdir } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const here = fileURLToPath(new URL('.', import.meta.url))
export const PAGE_OUT = fileURLToPath(new URL('../../dist/examples/redux-react', import.meta.url))

export const buildPage = async (outDir = PAGE_OUT): Promise<string> => {
  await mkdir(outDir, { recursive: true })
  await build({
    entryPoints: [`${here}main.ts`],
    outfile: `${outDir}/app.js`,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    sourcemap: true,
    logLevel: 'warning',
    define: { 'process.env.NODE_ENV': '"production"' },
  })
  await copyFile(`${here}index.html`, `${outDir}/index.html`)
  await copyFile(`${here}app.css`, `${outDir}/app.css`)
  return outDir
}
