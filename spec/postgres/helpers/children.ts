// Driving hub child processes (hubChild.ts) from a spec: send a request, await its answer, watch
// the lines it prints, kill it. Children are bundled once (see spec/log/helpers/child.ts).
import { spawn, type ChildProcess } from 'node:child_process'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Test } from 'uvu'
import type { PostgresStore } from '../../../lib/postgres.js'
import { tempDir } from '../../log/helpers/files.js'
import { DATABASE_URL, dropSchemas, freshStore, newSchema } from './db.js'

const entry = path.join(path.dirname(fileURLToPath(import.meta.url)), 'hubChild.ts')
const bundled = new Map<string, Promise<string[]>>()

/** A child's entry bundled once with esbuild (CommonJS, pg inside), or run through tsx without it. */
const childArgs = (entry: string): Promise<string[]> => {
  if (!bundled.has(entry)) bundled.set(entry, bundle(entry))
  return bundled.get(entry)!
}

const bundle = async (entry: string): Promise<string[]> => {
  try {
    const { build } = await import('esbuild')
    const outfile = path.join(tempDir(), `${path.basename(entry, '.ts')}.cjs`)
    await build({ entryPoints: [entry], bundle: true, platform: 'node', format: 'cjs', outfile, external: ['pg-native'], logLevel: 'silent' })
    return [outfile]
  } catch {
    return ['--import', 'tsx', entry]
  }
}

export interface Line { id?: number; ok?: boolean; ready?: number; event?: string; seq?: number; acked?: number; reply_id?: string; error?: { code: string; message: string }; [key: string]: unknown }

export interface HubChild {
  pid: number
  lines: Line[]
  request(op: string, session: string, extra?: Record<string, unknown>): { id: number; answer: Promise<Line> }
  /** Resolves with the first line (after the ones seen so far) that matches. */
  waitFor(match: (line: Line) => boolean): Promise<Line>
  kill(signal?: NodeJS.Signals): Promise<void>
  exited: Promise<number | null>
}

let nextId = 1

/** A hub child on `schema` of DATABASE_URL, or on the store named `schema` at a nats:// `url`; `kind: 'tree'`: its agent delegates (sessionTreeAgent). */
export const startHubChild = (schema: string, url = DATABASE_URL, kind?: 'tree'): Promise<HubChild> => startChild(entry, [schema, url, ...(kind ? [kind] : [])])

/** A child process running `file` (a script of the same protocol as hubChild.ts) with `argv`. */
export const startChild = async (file: string, argv: string[]): Promise<HubChild> => {
  const args = await childArgs(file)
  const child: ChildProcess = spawn(process.execPath, [...args, ...argv], { stdio: ['pipe', 'pipe', 'pipe'] })
  const lines: Line[] = []
  const watchers: { match: (l: Line) => boolean; resolve: (l: Line) => void }[] = []
  let buffer = ''
  let stderr = ''
  child.stderr!.on('data', (d: Buffer) => (stderr += d))
  child.stdout!.on('data', (d: Buffer) => {
    buffer += d
    for (let i = buffer.indexOf('\n'); i >= 0; i = buffer.indexOf('\n')) {
      const line = JSON.parse(buffer.slice(0, i)) as Line
      buffer = buffer.slice(i + 1)
      lines.push(line)
      for (const w of watchers.splice(0)) (w.match(line) ? w.resolve(line) : watchers.push(w))
    }
  })
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve))
  let killed = false
  // A child that ends on its own while waited on fails the wait; one the spec killed leaves it pending.
  const waitFor = (match: (l: Line) => boolean) => new Promise<Line>((resolve, reject) => {
    watchers.push({ match, resolve })
    void exited.then((code) => killed || reject(new Error(`child ${child.pid} exited (${code}) while waited on: ${stderr}`)))
  })
  await waitFor((l) => l.ready !== undefined)
  return {
    pid: child.pid!,
    lines,
    request(op, session, extra = {}) {
      const id = nextId++
      const answer = waitFor((l) => l.id === id && (l.ok !== undefined || l.error !== undefined))
      child.stdin!.write(`${JSON.stringify({ id, op, session, ...extra })}\n`)
      return { id, answer }
    },
    waitFor,
    async kill(signal = 'SIGKILL') {
      killed = true
      child.kill(signal)
      await exited
    },
    exited,
  }
}

export interface ChildrenOfTest {
  /** The test's store, on a schema of its own. */
  readonly store: PostgresStore
  readonly schema: string
  /** Starts a hub child on the test's schema (`kind: 'tree'`: its agent delegates). */
  child(kind?: 'tree'): Promise<HubChild>
  /** SIGKILLs a child (it is no longer killed after the test). */
  kill(c: HubChild): Promise<void>
  /** Kills every child started so far. */
  killAll(): Promise<void>
}

/** Each test of `test` gets a fresh schema and store; its children are killed after it, the schemas dropped at the end. */
export const withChildren = (test: Test): ChildrenOfTest => {
  const children: HubChild[] = []
  let store: PostgresStore
  let schema = ''
  test.before.each(async () => {
    schema = newSchema()
    store = await freshStore({}, schema)
  })
  test.after.each(async () => {
    for (const c of children.splice(0)) await c.kill()
    await store.close()
  })
  test.after(dropSchemas)
  return {
    get store() {
      return store
    },
    get schema() {
      return schema
    },
    async child(kind) {
      const c = await startHubChild(schema, undefined, kind)
      children.push(c)
      return c
    },
    async kill(c) {
      children.splice(children.indexOf(c), 1)
      await c.kill('SIGKILL')
    },
    async killAll() {
      for (const c of children.splice(0)) await c.kill()
    },
  }
}
