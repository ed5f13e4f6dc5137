// The agentlog command on sessions of a store: replay, inspect and validate a Postgres session (and
// a directory session) with --session; `sessions` lists them with their status; `export` and
// `import` move a session between a sessions directory and PostgreSQL byte for byte.
import fs from 'node:fs'
import path from 'node:path'
import { isDeepStrictEqual } from 'node:util'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { runMain } from '../cli/helpers/main.js'
import { createHub } from '../../lib/index.js'
import type { PostgresStore } from '../../lib/postgres.js'
import { tempDir } from '../log/helpers/files.js'
import { sessionAgent } from '../helpers/sessionModel.js'
import { DATABASE_URL, dropSchemas, freshStore, newSchema, postgresAvailable } from './helpers/db.js'

const test = suite('postgres/cli')
let store: PostgresStore

const run = runMain

test.before(async () => {
  store = await freshStore()
  const hub = createHub({ store, agent: sessionAgent(1) })
  await hub.create({ session_id: 'chat-1' })
  await hub.session('chat-1').reply('hello')
  await hub.session('chat-1').reply('ask /tmp/a')
  await hub.create({ session_id: 'chat-2' })
  await hub.session('chat-2').reply('hi')
  await hub.close()
  store = await freshStore({}, store.schema)
})
test.after(async () => {
  await store.close()
  await dropSchemas()
})

test('sessions lists a Postgres store with status and last seq', async () => {
  const { code, out } = await run('sessions', DATABASE_URL, '--schema', store.schema)
  assert.is(code, 0)
  assert.match(out, /2 sessions/)
  assert.match(out, /chat-1\s+paused/)
  assert.match(out, /chat-2\s+idle/)
  const json = JSON.parse((await run('sessions', DATABASE_URL, '--schema', store.schema, '--json')).out)
  assert.equal(json.sessions.map((s: { title?: string }) => s.title), ['hi', 'hello'], 'titles: the first user messages')
  // newest first, as the web page lists them
  assert.equal(json.sessions.map((s: { session_id: string; last_seq: number }) => [s.session_id, s.last_seq]), [['chat-2', (await store.info('chat-2')).last_seq], ['chat-1', (await store.info('chat-1')).last_seq]])
})

test('replay, inspect and validate read a Postgres session named with --session', async () => {
  const replayed = await run('replay', DATABASE_URL, '--session', 'chat-1', '--schema', store.schema, '--json')
  assert.is(replayed.code, 0, replayed.err)
  assert.ok(isDeepStrictEqual(JSON.parse(replayed.out).state, await store.state!('chat-1')), 'replay --json state equals the store state')
  const text = await run('replay', DATABASE_URL, '--session', 'chat-1', '--schema', store.schema)
  assert.match(text.out, /session chat-1: events 1-/)
  const inspected = await run('inspect', DATABASE_URL, '--session', 'chat-1', '--schema', store.schema)
  assert.is(inspected.code, 0)
  assert.match(inspected.out, /2 replies/)
  const valid = await run('validate', DATABASE_URL, '--session', 'chat-1', '--schema', store.schema)
  assert.is(valid.code, 0, valid.out)
  assert.match(valid.out, /valid/)
})

test('export and import move a session between PostgreSQL and a directory byte for byte', async () => {
  const dir = tempDir()
  const exported = await run('export', DATABASE_URL, '--session', 'chat-1', '--schema', store.schema)
  assert.is(exported.code, 0)
  const file = path.join(tempDir(), 'chat-1.jsonl')
  fs.writeFileSync(file, `${exported.out}\n`)
  const sessionsDir = path.join(dir, 'sessions')
  assert.is((await run('import', sessionsDir, file, '--session', 'moved')).code, 0)
  assert.equal(fs.readFileSync(path.join(sessionsDir, 'moved.jsonl')), fs.readFileSync(file), 'the directory holds the same bytes')
  const back = await run('export', sessionsDir, '--session', 'moved')
  assert.is(`${back.out}\n`, fs.readFileSync(file, 'utf8'))
  const again = path.join(tempDir(), 'moved.jsonl')
  fs.writeFileSync(again, `${back.out}\n`)
  assert.is((await run('import', DATABASE_URL, again, '--session', 'returned', '--schema', store.schema)).code, 0)
  const returned = await run('export', DATABASE_URL, '--session', 'returned', '--schema', store.schema)
  assert.is(returned.out, exported.out, 'PostgreSQL returns the same bytes')
  assert.is((await store.info('returned')).status, 'paused')
  assert.is((await run('validate', sessionsDir, '--session', 'moved')).code, 0)
})

test('migrate creates the tables of a new schema, then says it is up to date', async () => {
  const schema = newSchema()
  const first = await run('migrate', DATABASE_URL, '--schema', schema)
  assert.is(first.code, 0, first.err)
  assert.match(first.out, /applied versions 1, 2, 3/)
  assert.match((await run('migrate', DATABASE_URL, '--schema', schema)).out, /up to date/)
  assert.match((await run('sessions', DATABASE_URL, '--schema', schema)).out, /0 sessions/)
})

test('mistakes: a store without --session, --session on a file, an unknown session, a taken id', async () => {
  assert.is((await run('replay', DATABASE_URL, '--schema', store.schema)).code, 2)
  const file = path.join(tempDir(), 'x.jsonl')
  fs.writeFileSync(file, '{"agentlog":1}\n')
  assert.is((await run('replay', file, '--session', 'a')).code, 2)
  const unknown = await run('inspect', DATABASE_URL, '--session', 'nope', '--schema', store.schema)
  assert.is(unknown.code, 1)
  assert.match(unknown.err, /no session nope/)
  const taken = await run('import', DATABASE_URL, file, '--session', 'chat-1', '--schema', store.schema)
  assert.is(taken.code, 1)
  assert.match(taken.err, /exists already/)
  const down = await run('sessions', 'postgres://postgres@127.0.0.1:1/test')
  assert.is(down.code, 1)
  assert.match(down.err, /could not be reached/)
})

if (postgresAvailable('spec/postgres/cli.spec.ts')) test.run()
