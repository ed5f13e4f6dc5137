#!/usr/bin/env node
// The `agentlog` command. In a development checkout (the TypeScript sources are here) it runs them
// through tsx; an installed package ships only the built CLI (dist/, made by `npm run build`).
import { existsSync } from 'node:fs'

const source = new URL('../lib/cli/main.ts', import.meta.url)
let main, exitQuietlyOnClosedPipe
if (existsSync(source)) {
  const { register } = await import('tsx/esm/api')
  register()
  ;({ main, exitQuietlyOnClosedPipe } = await import(source.href))
} else {
  ;({ main, exitQuietlyOnClosedPipe } = await import(new URL('../dist/lib/cli/main.js', import.meta.url).href))
}
exitQuietlyOnClosedPipe()
process.exitCode = await main(process.argv.slice(2))
