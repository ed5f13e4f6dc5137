// SSE ids name durable events, each its own seq. On a log that commits after append (PostgreSQL),
// a reply's events reach the server before they are stored: a reply stream sends them without
// `id:`, and names a seq only on an event delivered after its commit (REPLY_END, a pause), so a
// client resuming from its Last-Event-ID never skips an event the log loses. /events refuses a
// position past the session's last event, and every event it sends carries its own metadata.seq.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createHub, createServer, memoryStore, say, scriptedModel, type LogStore, type SessionStore } from '../../lib/index.js'
import { listen } from '../../lib/node.js'
import { readSse } from '../../lib/client/sse.js'
import pg from 'pg'
import { DATABASE_URL, dropSchemas, freshStore, postgresAvailable } from '../postgres/helpers/db.js'
import { newSession, post, readAll, startServer } from './helpers.js'

const test = suite('server/ids')

/** A memory store whose logs commit only when the spec says so: `flush()` waits for `commit()`. */
const lateCommitStore = () => {
  const inner = memoryStore()
  let committed = 0
  let commit!: () => void
  const allowed = new Promise<void>((resolve) => (commit = resolve))
  const store: SessionStore = {
    ...inner,
    async open(session_id) {
      const log = await inner.open(session_id)
      const late: LogStore = {
        ...log,
        get events() {
          return log.events
        },
        async flush() {
          const upTo = log.events.length
          await allowed
          committed = Math.max(committed, upTo)
        },
      }
      return late
    },
  }
  return { store, commit: () => commit(), committed: () => committed }
}

test('a reply stream on a log that commits after append sends uncommitted events without id; each id names a committed event', async () => {
  const late = lateCommitStore()
  const hub = createHub({ store: late.store, agent: () => ({ name: 'Friday', model: scriptedModel([[...say('one two three four five six', 12)]]) }) })
  const listening = await listen(createServer({ hub }), { port: 0 })
  try {
    const id = await newSession(listening.url)
    const response = await post(`${listening.url}/sessions/${id}/replies`, { input: 'hi' })
    const received: { id?: string; seq: number; type: string; committed: number }[] = []
    for await (const message of readSse(response)) {
      const event = message.data as { type: string; metadata: { seq: number } }
      received.push({ id: message.id, seq: event.metadata.seq, type: event.type, committed: late.committed() })
      if (received.length === 5) late.commit()
    }
    assert.ok(received.length > 10)
    for (const r of received.filter((r) => r.id !== undefined && r.id !== '')) {
      assert.is(Number(r.id), r.seq, 'an id is the event\'s own seq')
      assert.ok(r.seq <= r.committed, `id ${r.id} (${r.type}) was sent when only ${r.committed} events were committed`)
    }
    assert.is(received.at(-1)!.type, 'REPLY_END')
    assert.is(Number(received.at(-1)!.id), received.at(-1)!.seq, 'the committed end is named')
  } finally {
    await listening.close()
    await hub.close()
  }
})

test('from_seq or Last-Event-ID past the last event is refused 400; every event goes out under its own seq', async () => {
  const server = await startServer(() => ({ name: 'Friday', model: scriptedModel([[...say('Hi there.', 3)]], { onExhausted: 'repeat-last' }) }))
  try {
    const id = await newSession(server.url)
    const first = await readAll(await post(`${server.url}/sessions/${id}/replies`, { input: 'hi' }))
    const last = first.at(-1)!.seq
    for (const beyond of [last + 1, last + 50]) {
      for (const request of [fetch(`${server.url}/sessions/${id}/events?from_seq=${beyond}`), fetch(`${server.url}/sessions/${id}/events`, { headers: { 'last-event-id': String(beyond) } })]) {
        const refused = await request
        assert.is(refused.status, 400, `from ${beyond}`)
        assert.is(((await refused.json()) as { code: string }).code, 'INVALID_INPUT')
      }
    }
    const followed = fetch(`${server.url}/sessions/${id}/events?from_seq=${last}`)
    await readAll(await post(`${server.url}/sessions/${id}/replies`, { input: 'again' }))
    const rest = await readAll(await followed, (event) => event.type === 'REPLY_END')
    assert.ok(rest.length > 3)
    assert.ok(rest.every(({ seq, event }) => seq === event.metadata.seq), 'each id is the event\'s own seq')
    assert.is(rest[0].seq, last + 1)
    const whole = await readAll(await fetch(`${server.url}/sessions/${id}/events?from_seq=0`), (_, seq) => seq === rest.at(-1)!.seq)
    assert.ok(whole.every(({ seq, event }, i) => seq === i + 1 && event.metadata.seq === seq))
  } finally {
    await server.close()
  }
})

if (postgresAvailable('spec/server/ids.spec.ts')) {
  test('on PostgreSQL, no SSE id names an event the database does not hold yet (commits held back by a table lock)', async () => {
    const store = await freshStore()
    const hub = createHub({ store, agent: () => ({ name: 'Friday', model: scriptedModel([[...say('one two three four five six seven', 14)]], { chunkDelayMs: 2 }) }) })
    const listening = await listen(createServer({ hub }), { port: 0 })
    const blocker = new pg.Client({ connectionString: DATABASE_URL })
    const reader = new pg.Client({ connectionString: DATABASE_URL })
    await blocker.connect()
    await reader.connect()
    const stored = async (session_id: string) => Number((await reader.query(`SELECT count(*) AS n FROM "${store.schema}".events WHERE session_id = $1`, [session_id])).rows[0].n)
    try {
      const id = await newSession(listening.url)
      await blocker.query('BEGIN')
      await blocker.query(`LOCK TABLE "${store.schema}".events IN EXCLUSIVE MODE`)
      let locked = true
      const response = await post(`${listening.url}/sessions/${id}/replies`, { input: 'hi' })
      const named: { id: number; type: string; held: number }[] = []
      let deltas = 0
      for await (const message of readSse(response)) {
        const event = message.data as { type: string; metadata: { seq: number } }
        if (message.id) {
          named.push({ id: Number(message.id), type: event.type, held: await stored(id) })
          assert.is(Number(message.id), event.metadata.seq)
        }
        if (event.type === 'TEXT_BLOCK_DELTA' && ++deltas === 10 && locked) {
          assert.is(await stored(id), 0, 'nothing is committed while the table is locked')
          locked = false
          await blocker.query('ROLLBACK')
        }
      }
      assert.ok(deltas >= 10, `${deltas} deltas streamed`)
      assert.ok(named.length > 0 && named.at(-1)!.type === 'REPLY_END')
      for (const n of named) assert.ok(n.id <= n.held, `id ${n.id} (${n.type}) went out while the database held ${n.held} events`)
    } finally {
      await blocker.query('ROLLBACK').catch(() => {})
      await blocker.end()
      await reader.end()
      await listening.close()
      await hub.close()
      await dropSchemas()
    }
  })
}

test.run()
