// Append throughput: 100 sessions streaming replies at once in one process, committed events per
// second, against a bare loop of the same multi-row INSERT statements with the same batch sizes
// (recorded from the run) on one connection, in the same run.
import pg from 'pg'
import { createAgent, UserMsg, type Agent } from '../../lib/index.js'
import type { CommitInfo } from '../../lib/postgres.js'
import { names } from '../../lib/postgres/sql.js'
import { DATABASE_URL, fastModel, freshStore } from './shared.js'

export const throughput = async (sessions = 100, replies = 5, deltas = 200) => {
  const statements: CommitInfo[] = []
  const store = await freshStore({ snapshots: false, onCommit: (info) => statements.push(info) })
  const agents: Agent[] = []
  for (let i = 0; i < sessions; i++) {
    await store.create({ session_id: `s${i}` })
    agents.push(createAgent({ name: 'Bench', model: fastModel(deltas), log: await store.open(`s${i}`), session_id: `s${i}` }))
  }
  const started = performance.now()
  await Promise.all(agents.map(async (agent) => {
    for (let r = 0; r < replies; r++) await agent.reply(UserMsg({ content: `reply ${r}` }))
    await agent.flush()
  }))
  const elapsed = performance.now() - started
  const committed = statements.reduce((sum, s) => sum + s.events, 0)
  const pool = new pg.Pool({ connectionString: DATABASE_URL })
  const { rows } = await pool.query<{ body: string }>(`SELECT body FROM ${names(store.schema).events} ORDER BY session_id, seq`)
  await Promise.all(agents.map((a) => a.close()))
  await store.close()

  // The bare loop: the same statement, the same sizes, the same bodies, one after another.
  const bare = await freshStore({ snapshots: false })
  const n = names(bare.schema)
  for (let i = 0; i < sessions; i++) await bare.create({ session_id: `s${i}` })
  await bare.close()
  const client = await pool.connect()
  const next = new Map<string, number>()
  let body = 0
  const bareStarted = performance.now()
  for (const s of statements) {
    const ids: string[] = []
    const seqs: number[] = []
    const bodies: string[] = []
    const last = new Map<string, number>()
    for (let i = 0; i < s.events; i++) {
      const id = `s${i % s.sessions}`
      const seq = (next.get(id) ?? 0) + 1
      next.set(id, seq)
      last.set(id, seq)
      ids.push(id)
      seqs.push(seq)
      bodies.push(rows[body++ % rows.length].body)
    }
    await client.query(
      `WITH appended AS (INSERT INTO ${n.events} (session_id, seq, body) SELECT * FROM unnest($1::text[], $2::bigint[], string_to_array($3::text, E'\n')))
       UPDATE ${n.sessions} AS s SET last_seq = u.last_seq, status = u.status, updated_at = now()
       FROM unnest($4::text[], $5::bigint[], $6::text[]) AS u(session_id, last_seq, status) WHERE s.session_id = u.session_id`,
      [ids, seqs, bodies.join('\n'), [...last.keys()], [...last.values()], [...last.keys()].map(() => 'running')])
  }
  const bareElapsed = performance.now() - bareStarted
  client.release()
  await pool.end()

  const rate = committed / (elapsed / 1000)
  const bareRate = committed / (bareElapsed / 1000)
  const sizes = statements.map((s) => s.events).sort((a, b) => a - b)
  return [
    `Append throughput: ${sessions} sessions x ${replies} replies x ${deltas} deltas, ${committed} events in ${statements.length} statements (batch p50 ${sizes[sizes.length >> 1]}, max ${sizes.at(-1)} events)`,
    `  agent + store: ${Math.round(rate).toLocaleString('en')} committed events/s (${(elapsed / 1000).toFixed(2)} s)`,
    `  bare INSERT loop, same batches: ${Math.round(bareRate).toLocaleString('en')} events/s (${(bareElapsed / 1000).toFixed(2)} s)`,
    `  ratio: ${(rate / bareRate).toFixed(2)}x the bare loop (goal: at least 0.5x)`,
  ]
}
