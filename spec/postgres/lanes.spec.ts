// The control lane on PostgreSQL (issue 29): the group-commit writer commits the sessions whose
// events end or pause a reply in a statement before the other sessions' deltas; a routed Stop is
// read and answered on the store's control connection, so an owner whose pool is taken by reads
// (the followers' backlog) still answers it before any of them is let go.
import pg from 'pg'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createHub, type Hub } from '../../lib/index.js'
import type { PostgresStore } from '../../lib/postgres.js'
import { names } from '../../lib/postgres/sql.js'
import { Writer, type Batch, type Writable } from '../../lib/postgres/writer.js'
import type { Lease } from '../../lib/postgres/lease.js'
import { sessionAgent } from '../helpers/sessionModel.js'
import { DATABASE_URL, dropSchemas, freshStore, newSchema, postgresAvailable } from './helpers/db.js'

const writer = suite('postgres/writer lanes')

/** A log with one batch to give the writer. */
const pendingLog = (session_id: string, status: string, events: number): Writable => {
  let batch: Batch | null = { session_id, firstSeq: 1, bodies: Array.from({ length: events }, (_, i) => JSON.stringify({ i })), status }
  return {
    session_id,
    take: () => {
      const taken = batch
      batch = null
      return taken
    },
    committed: () => undefined,
    fail: (error) => assert.unreachable(String(error)),
    snapshotDue: () => null,
  }
}

writer('a REPLY_END is committed in a statement of its own before the deltas of other sessions in the same round', async () => {
  const statements: string[][] = []
  const lease = { query: async (_text: string, values: unknown[]) => (statements.push(values[3] as string[]), []) } as unknown as Lease
  const w = new Writer(lease, names('lanes'), () => undefined)
  for (let i = 0; i < 5; i++) w.schedule(pendingLog(`streaming-${i}`, 'running', 200))
  w.schedule(pendingLog('stopped', 'idle', 3))
  w.schedule(pendingLog('parked', 'paused', 2))
  await new Promise((resolve) => setTimeout(resolve, 10))
  assert.equal(statements, [['stopped', 'parked'], ['streaming-0', 'streaming-1', 'streaming-2', 'streaming-3', 'streaming-4']])
})

writer('a round with no control is still one statement', async () => {
  const statements: string[][] = []
  const lease = { query: async (_text: string, values: unknown[]) => (statements.push(values[3] as string[]), []) } as unknown as Lease
  const w = new Writer(lease, names('lanes'), () => undefined)
  w.schedule(pendingLog('a', 'running', 5))
  w.schedule(pendingLog('b', 'running', 5))
  await new Promise((resolve) => setTimeout(resolve, 10))
  assert.equal(statements, [['a', 'b']])
})

writer.run()

const routed = suite('postgres/routed control lane')
const MAX = 5
let pool: pg.Pool
let storeA: PostgresStore
let storeB: PostgresStore
let a: Hub
let b: Hub
const held: pg.PoolClient[] = []

routed.before(async () => {
  const schema = newSchema()
  pool = new pg.Pool({ connectionString: DATABASE_URL, max: MAX })
  pool.on('error', () => undefined)
  storeA = await freshStore({ pool }, schema)
  storeB = await freshStore({}, schema)
  a = createHub({ store: storeA, agent: sessionAgent(3) })
  b = createHub({ store: storeB, agent: sessionAgent(3) })
  await a.create({ session_id: 's1' })
  await a.session('s1').reply('hello') // A owns s1
})
routed.after(async () => {
  for (const client of held.splice(0)) client.release()
  await b.close()
  await a.close()
  await pool.end()
  await dropSchemas()
})

routed('a Stop routed to an owner whose pool is taken by reads is answered before any of them lets go', async () => {
  const stream = a.session('s1').replyStream('slow 60000')[Symbol.asyncIterator]()
  for (let next = await stream.next(); !next.done; next = await stream.next()) if (next.value.type === 'TOOL_RESULT_START') break
  // Every connection of A's pool that the store does not keep for itself is taken (a backlog of
  // follower reads would hold them the same way).
  for (let free = MAX - (pool.totalCount - pool.idleCount); free > 0; free--) held.push(await pool.connect())
  const order: string[] = []
  const stopped = b.session('s1').interrupt().then(() => order.push('Stop answered'))
  const freed = new Promise((resolve) => setTimeout(resolve, 5000)).then(() => {
    order.push('pool freed')
    for (const client of held.splice(0)) client.release()
  })
  await Promise.all([stopped, freed])
  assert.equal(order, ['Stop answered', 'pool freed'])
  const state = await a.session('s1').state()
  assert.is(state.status, 'idle')
  for (let next = await stream.next(); !next.done; next = await stream.next()) if (next.value.type === 'REPLY_END') assert.is(next.value.finished_reason, 'interrupted')
})

if (postgresAvailable(import.meta.url)) routed.run()
