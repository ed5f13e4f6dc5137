// Paging through sessions on a database whose collation is not C (the usual production setup: an
// ICU English collation orders "a_b" before "A" and "aB" after "ab"): every session is listed
// exactly once, newest first and sessions of one start time in byte order, page after page. The spec creates that database and drops it.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { postgresStore } from '../../lib/postgres.js'
import { admin, DATABASE_URL, postgresAvailable } from './helpers/db.js'

const test = suite('postgres/collation')
const database = `agentlog_spec_icu_${process.pid}`
const url = DATABASE_URL.replace(/\/[^/]*$/, `/${database}`)

test.before(async () => {
  await admin(`DROP DATABASE IF EXISTS ${database}`)
  await admin(`CREATE DATABASE ${database} TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C.UTF-8'`)
})
test.after(async () => {
  await admin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)
})

test('paging under an ICU collation lists every session once, newest first, then in byte order', async () => {
  const store = postgresStore({ connectionString: url })
  try {
    await store.migrate()
    const ids = ['A', 'B', 'a', 'a-b', 'a.c', 'aB', 'a_b', 'ab', 'b', 'b-a', 'ba', 'Z9', 'z_']
    for (const id of ids) await store.create({ session_id: id })
    // Two start times, each shared by several sessions: the id alone orders those.
    const older = ids.filter((_, i) => i % 2 === 0)
    await admin(`UPDATE agentlog.sessions SET created_at = CASE WHEN session_id = ANY($1) THEN timestamptz '2026-01-01 00:00:00.000001Z' ELSE timestamptz '2026-01-01 00:00:00.000002Z' END`, [older], url)
    const expected = [...ids.filter((id) => !older.includes(id)).sort(), ...older.sort()]
    for (const limit of [1, 2, 3, 5]) {
      const seen: string[] = []
      let after: string | undefined
      do {
        const page = await store.list({ limit, after })
        seen.push(...page.items.map((s) => s.session_id))
        after = page.next
      } while (after !== undefined)
      assert.equal(seen, expected, `pages of ${limit}`)
    }
  } finally {
    await store.close()
  }
})

if (postgresAvailable('spec/postgres/collation.spec.ts')) test.run()
