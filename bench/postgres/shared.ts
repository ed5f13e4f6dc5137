// Shared parts of the Postgres benchmarks: the database (DATABASE_URL, default the local test
// database), a schema per run dropped at the end, percentiles, a model that streams without
// timers (models.ts), and child processes with a hub of their own (child.ts).
import { spawn } from 'node:child_process'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import fs from 'node:fs'
import pg from 'pg'
import { postgresStore, type PostgresStoreOptions } from '../../lib/postgres.js'

export { endlessModel, fastModel } from './models.js'

export const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
const schemas: string[] = []

export const freshStore = async (options: Partial<PostgresStoreOptions> = {}, schema?: string) => {
  if (!schema) schemas.push((schema = `bench_${process.pid}_${schemas.length}`))
  const store = postgresStore({ connectionString: DATABASE_URL, schema, ...options })
  await store.migrate()
  return store
}

export const dropSchemas = async () => {
  const client = new pg.Client({ connectionString: DATABASE_URL })
  await client.connect()
  for (const s of schemas.splice(0)) await client.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`)
  await client.end()
}

export const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]
}
export const ms = (n: number) => `${n.toFixed(2)} ms`

const here = path.dirname(fileURLToPath(import.meta.url))
let bundle: Promise<string> | null = null

/** Starts child.ts with `args`; resolves with it once it printed its first line. */
export const startChild = async (args: string[]) => {
  bundle ??= (async () => {
    const { build } = await import('esbuild')
    const outfile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'agentlog-bench-')), 'child.cjs')
    await build({ entryPoints: [path.join(here, 'child.ts')], bundle: true, platform: 'node', format: 'cjs', outfile, external: ['pg-native'], logLevel: 'silent' })
    return outfile
  })()
  const child = spawn(process.execPath, [await bundle, ...args], { stdio: ['pipe', 'pipe', 'inherit'] })
  const lines: string[] = []
  let buffer = ''
  const waiters: (() => void)[] = []
  child.stdout.on('data', (d: Buffer) => {
    buffer += d
    for (let i = buffer.indexOf('\n'); i >= 0; i = buffer.indexOf('\n')) {
      lines.push(buffer.slice(0, i))
      buffer = buffer.slice(i + 1)
    }
    for (const w of waiters.splice(0)) w()
  })
  const nextLine = async (from: number) => {
    while (lines.length <= from) await new Promise<void>((resolve) => waiters.push(resolve))
    return lines[from]
  }
  await nextLine(0)
  return { child, lines, nextLine, send: (value: unknown) => child.stdin.write(`${JSON.stringify(value)}\n`), stop: () => child.kill('SIGKILL') }
}
