// PostgreSQL's side of a paused owner: its lease is a session-level advisory lock, which a pause
// does not lose; but the lock goes with the lease connection, which can die while the process is
// paused (here: terminated by the server). Another process then takes the session over and applies
// the routed approval; the owner that wakes proves its lease before any routed command, tool or
// model call, finds the connection gone, and applies nothing: the approved tool ran once.
import fs from 'node:fs'
import path from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createHub } from '../../lib/index.js'
import { checkLog } from '../../lib/core/logCheck.js'
import { leaseKey } from '../../lib/postgres/sql.js'
import { sessionAgent } from '../helpers/sessionModel.js'
import { tempDir } from '../log/helpers/files.js'
import { withChildren } from './helpers/children.js'
import { admin, freshStore, postgresAvailable } from './helpers/db.js'

const test = suite('postgres/pause')
const ctx = withChildren(test)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

test('an owner paused while its lease connection dies: the session moves, the waking owner applies nothing again (the tool ran once)', async () => {
  const effects = path.join(tempDir(), 'effects.txt')
  fs.writeFileSync(effects, '')
  process.env.AGENTLOG_SPEC_EFFECTS = effects
  await ctx.store.create({ session_id: 's1' })
  const a = await ctx.child()
  const hub = createHub({ store: await freshStore({}, ctx.schema), agent: sessionAgent(1) })
  try {
    const asked = await a.request('reply', 's1', { input: 'ask /tmp/pg-paused' }).answer
    assert.is((asked.types as string[]).at(-1), 'REQUIRE_USER_CONFIRM')
    process.kill(a.pid, 'SIGSTOP')
    // The paused owner's lease connection dies (a network cut, a server restart): its locks with it.
    const [killed] = await admin<{ n: string }>(`SELECT count(pg_terminate_backend(pid)) AS n FROM pg_locks
      WHERE locktype = 'advisory' AND granted AND objsubid = 1 AND ((classid::bigint << 32) | objid::bigint) = hashtextextended($1, 0)`, [leaseKey(ctx.schema, 's1')])
    assert.is(Number(killed.n), 1, 'the owner\'s lease connection held the lock')
    const call = (await hub.session('s1').state()).waiting_for[0]
    const caused = await hub.session('s1').approve(call.id)
    assert.is(caused[0].type, 'USER_CONFIRM_RESULT')
    for (let i = 0; i < 250 && (await ctx.store.info('s1')).status !== 'idle'; i++) await sleep(20)
    process.kill(a.pid, 'SIGCONT')
    await sleep(1000)
    const runs = fs.readFileSync(effects, 'utf8').split('\n').filter((l) => l.endsWith('/tmp/pg-paused'))
    assert.is(runs.length, 1, `the approved tool ran once: ${JSON.stringify(runs)}`)
    const events = await ctx.store.read('s1')
    assert.is(events.filter((e) => e.type === 'USER_CONFIRM_RESULT').length, 1)
    assert.equal(checkLog(events).violations, [])
  } finally {
    delete process.env.AGENTLOG_SPEC_EFFECTS
    process.kill(a.pid, 'SIGCONT')
    await hub.close()
  }
})

if (postgresAvailable('spec/postgres/pause.spec.ts')) test.run()
