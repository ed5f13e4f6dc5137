// Bad input and bad days on PostgreSQL: a wrong URL, a server that is not there, the connection
// dropped mid-reply (pg_terminate_backend), tables changed or damaged behind the store's back,
// migrations from several processes at once, a schema newer than this agentlog: coded errors,
// and nothing acknowledged lost.
import pg from 'pg'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { AgentError, createHub, createServer, UserMsg, createAgent } from '../../lib/index.js'
import { postgresStore, SCHEMA_VERSION } from '../../lib/postgres.js'
import { checkLog } from '../../lib/core/logCheck.js'
import { sessionAgent, sessionModel, sessionTools } from '../helpers/sessionModel.js'
import { admin, DATABASE_URL, dropSchemas, freshStore, newSchema, postgresAvailable } from './helpers/db.js'
import { rejectsWithCode as code } from '../helpers/expect.js'

const test = suite('postgres/bad-input')
test.after(dropSchemas)

test('a wrong URL or options are refused at once; a server that is not there is LOG_UNAVAILABLE', async () => {
  await code(() => postgresStore({ connectionString: 'http://example/db' }), 'INVALID_OPTION')
  await code(() => postgresStore({} as never), 'INVALID_OPTION')
  await code(() => postgresStore({ connectionString: DATABASE_URL, schema: 'Bad-Name' }), 'INVALID_OPTION')
  const tiny = new pg.Pool({ connectionString: DATABASE_URL, max: 2 })
  await code(() => postgresStore({ pool: tiny }), 'INVALID_OPTION')
  await tiny.end()
  const down = postgresStore({ connectionString: 'postgres://postgres@127.0.0.1:1/test', schema: newSchema() })
  const error = await code(down.migrate(), 'LOG_UNAVAILABLE')
  assert.match(error!.message, /running/)
  await code(down.create({ session_id: 's1' }), 'LOG_UNAVAILABLE')
  await code(down.open('s1'), 'LOG_UNAVAILABLE')
  await down.close()
  const wrongDb = postgresStore({ connectionString: DATABASE_URL.replace(/\/[^/]*$/, '/no_such_database'), schema: newSchema() })
  await code(wrongDb.migrate(), 'LOG_UNAVAILABLE')
  await wrongDb.close()
})

test('an unmigrated schema says to migrate', async () => {
  const store = postgresStore({ connectionString: DATABASE_URL, schema: newSchema() })
  const error = await code(store.create({ session_id: 's1' }), 'LOG_UNAVAILABLE')
  assert.match(error!.message, /migrate/)
  await store.close()
})

test('migrations from several processes at once apply each version once; a newer schema is refused', async () => {
  const schema = newSchema()
  const stores = Array.from({ length: 4 }, () => postgresStore({ connectionString: DATABASE_URL, schema }))
  const applied = await Promise.all(stores.map((s) => s.migrate()))
  assert.equal(applied.flat().sort(), Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1), 'every version applied exactly once in all')
  await admin(`INSERT INTO "${schema}".schema_migrations (version) VALUES ($1)`, [SCHEMA_VERSION + 1])
  await code(stores[0].migrate(), 'LOG_VERSION')
  await Promise.all(stores.map((s) => s.close()))
})

test('the lease connection dropped mid-reply: the reply ends LOG_UNAVAILABLE, nothing acknowledged is lost, the session goes on', async () => {
  const store = await freshStore()
  await store.create({ session_id: 's1' })
  const hub = createHub({ store, agent: sessionAgent(3) })
  const s = hub.session('s1')
  await s.reply('first')
  const acknowledged = (await s.state()).seq
  const stream = (async () => {
    for await (const e of s.replyStream('stream 400')) if (e.type === 'REPLY_END') return e
  })()
  stream.catch(() => undefined) // awaited below, after the backend is terminated
  await new Promise((r) => setTimeout(r, 60))
  await admin('SELECT pg_terminate_backend($1)', [await store.leasePid()])
  const error = await code(stream, 'LOG_UNAVAILABLE')
  assert.match(error!.message, /reached|lost/)
  const stored = await store.read('s1')
  assert.ok(stored.length >= acknowledged, 'every acknowledged event is stored')
  assert.is(stored[acknowledged - 1].type, 'REPLY_END')
  const msg = await s.reply('again')
  assert.is(msg.finished_reason, 'completed')
  const events = await store.read('s1')
  assert.equal(checkLog(events).violations, [])
  assert.ok(events.some((e) => e.type === 'REPLY_END' && e.finished_reason === 'interrupted'), 'the cut reply was closed as interrupted')
  await hub.close()
})

test('a table altered behind the store\'s back: the append is refused with LOG_UNAVAILABLE, earlier events stay', async () => {
  const store = await freshStore()
  await store.create({ session_id: 's1' })
  const agent = createAgent({ name: 'Friday', model: sessionModel(1), tools: sessionTools(), log: await store.open('s1'), session_id: 's1' })
  await agent.reply(UserMsg({ content: 'hi' }))
  const acknowledged = agent.state.seq
  await admin(`ALTER TABLE "${store.schema}".events RENAME COLUMN body TO payload`)
  const error = await code(agent.reply(UserMsg({ content: 'again' })), 'LOG_UNAVAILABLE')
  assert.match(error!.message, /migrate|changed/)
  await code(agent.flush(), 'LOG_UNAVAILABLE')
  await admin(`ALTER TABLE "${store.schema}".events RENAME COLUMN payload TO body`)
  assert.is((await store.read('s1')).length, acknowledged)
  await agent.close()
  await store.close()
})

test('a row written behind the owner\'s back at its next position: the reply ends LOG_CONFLICT, the other row stays', async () => {
  const store = await freshStore()
  await store.create({ session_id: 's1' })
  const agent = createAgent({ name: 'Friday', model: sessionModel(1), tools: sessionTools(), log: await store.open('s1'), session_id: 's1' })
  await agent.reply(UserMsg({ content: 'hi' }))
  const seq = agent.state.seq
  const intruder = JSON.stringify({ id: 'intruder', created_at: new Date().toISOString(), metadata: { seq: seq + 1 }, type: 'CUSTOM', name: 'x', value: {} })
  await admin(`INSERT INTO "${store.schema}".events (session_id, seq, body) VALUES ('s1', $1, $2)`, [seq + 1, intruder])
  await code(agent.reply(UserMsg({ content: 'again' })), 'LOG_CONFLICT')
  await code(agent.flush(), 'LOG_CONFLICT')
  const events = await store.read('s1')
  assert.is(events.length, seq + 1)
  assert.is(events[seq].id, 'intruder', 'the row that got there first stays')
  await agent.close()
  await store.close()
})

test('a row holds exactly the JSON that was appended: key order, unicode and escapes survive', async () => {
  const store = await freshStore()
  await store.create({ session_id: 's1' })
  const log = await store.open('s1')
  const event = { id: 'odd', created_at: '2026-01-01T00:00:00.000Z', metadata: { seq: 1, z: 1, a: 2 }, type: 'CUSTOM', name: 'n', value: { é: 'line\u2028sep', b: 'tab\t"quote"', a: [1e21, -0.5, null] } }
  log.append([event as never], { expectedSeq: 0 })
  await log.flush()
  const [row] = await admin<{ body: string }>(`SELECT body FROM "${store.schema}".events WHERE session_id = 's1'`)
  assert.is(row.body, JSON.stringify(event))
  assert.is(JSON.stringify((await store.read('s1'))[0]), JSON.stringify(event))
  await log.close()
  await store.close()
})

test('a damaged row is INVALID_LOG naming the event; a stale or damaged snapshot is ignored', async () => {
  const store = await freshStore({ snapshots: { every: 2 } })
  await store.create({ session_id: 's1' })
  const agent = createAgent({ name: 'Friday', model: sessionModel(1), tools: sessionTools(), log: await store.open('s1'), session_id: 's1' })
  await agent.reply(UserMsg({ content: 'hi' }))
  await agent.reply(UserMsg({ content: 'hi again' }))
  const state = agent.state
  await agent.close()
  await admin(`UPDATE "${store.schema}".snapshots SET state = replace(state, 'hi again', 'HI AGAIN')`)
  const ignored: string[] = []
  const reader = postgresStore({ connectionString: DATABASE_URL, schema: store.schema, snapshots: { every: 2 }, onSnapshotIgnored: (_id, why) => ignored.push(why) })
  const log = await reader.open('s1')
  assert.match(ignored[0], /checksum/)
  assert.is(log.snapshot?.(), null)
  assert.equal(createAgent({ name: 'Friday', model: sessionModel(1), log, session_id: 's1' }).state, state, 'the full fold is used instead')
  await log.close()
  await admin(`UPDATE "${store.schema}".events SET body = '{"type":' WHERE session_id = 's1' AND seq = 3`)
  const damaged = await code(reader.read('s1'), 'INVALID_LOG')
  assert.match(damaged!.message, /Event 3/)
  await reader.create({ session_id: 's2' })
  assert.equal((await reader.list()).items.map((s) => s.session_id), ['s2', 's1'], 'newest first; listing reads no event: a damaged log does not fail it')
  await reader.close()
  await store.close()
})

test('session metadata holding NUL (which PostgreSQL JSON cannot store) is 400 INVALID_INPUT through the server, not an outage', async () => {
  const store = await freshStore()
  const hub = createHub({ store, agent: sessionAgent(1) })
  try {
    const response = await createServer({ hub })(new Request('http://127.0.0.1/sessions', {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ session_id: 'n1', metadata: { note: 'a\u0000b' } }),
    }))
    assert.is(response.status, 400)
    assert.is(((await response.json()) as { code: string }).code, 'INVALID_INPUT')
    await code(store.info('n1'), 'NOT_FOUND')
    assert.ok(await hub.create({ session_id: 'n1', metadata: { note: 'a\\u0000b' } }), 'an escaped backslash is not a NUL')
  } finally {
    await hub.close()
  }
})

if (postgresAvailable('spec/postgres/badInput.spec.ts')) test.run()
