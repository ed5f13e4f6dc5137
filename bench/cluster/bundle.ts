// Bundles `agentlog` (serveMain.ts) and the benchmark's agent (agent.ts) once, as ES modules that
// share their chunks (the agent's tools and the hub are the same modules), into a temporary folder.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const here = path.dirname(fileURLToPath(import.meta.url))

export const bundle = async (): Promise<{ cli: string; agent: string }> => {
  const { build } = await import('esbuild')
  const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentlog-cluster-'))
  await build({
    entryPoints: { serve: path.join(here, 'serveMain.ts'), agent: path.join(here, 'agent.ts') },
    bundle: true, splitting: true, format: 'esm', platform: 'node', outdir, outExtension: { '.js': '.mjs' },
    external: ['pg-native'], logLevel: 'silent',
    // CommonJS dependencies (pg) require Node's modules.
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  })
  return { cli: path.join(outdir, 'serve.mjs'), agent: path.join(outdir, 'agent.mjs') }
}
