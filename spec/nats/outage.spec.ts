// The NATS server away for longer than a lease (SIGKILLed, started again on its port and store
// directory): nobody could take a session over meanwhile, so the replies in flight go on and
// complete, even with a second process whose sweeper looks for orphans as the server comes back.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createHub, type Hub } from '../../lib/index.js'
import { natsStore } from '../../lib/nats.js'
import { checkLog } from '../../lib/core/logCheck.js'
import { sessionAgent } from '../helpers/sessionModel.js'
import { natsServerInstalled } from './helpers/cluster.js'
import { startOwnServer, type OwnServer } from './helpers/ownServer.js'

const test = suite('nats/outage')
const LEASE_MS = 1000
let server: OwnServer
const hubs: Hub[] = []
test.before(async () => {
  server = await startOwnServer()
})
test.after.each(async () => {
  for (const hub of hubs.splice(0)) await hub.close()
})
test.after(async () => {
  await server.stop()
})

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const hubOn = (name: string, sweepMs: number | false = false) => {
  const hub = createHub({ store: natsStore({ servers: server.url, name, leaseMs: LEASE_MS }), agent: sessionAgent(1), sweepMs })
  hubs.push(hub)
  return hub
}

test('an outage of 2.5 leases while a tool runs: the reply completes, the log passes its checks, the other process took nothing', async () => {
  const a = hubOn('outage')
  const b = hubOn('outage', 100)
  await a.create({ session_id: 's1' })
  await b.list() // b is connected and sweeping before the outage
  const started = (async () => {
    const events: string[] = []
    for await (const e of a.session('s1').replyStream('slow 5000')) events.push(e.type)
    return events
  })()
  const stored = natsStore({ servers: server.url, name: 'outage', leaseMs: LEASE_MS })
  try {
    for (let i = 0; i < 200 && !(await stored.read('s1')).some((e) => e.type === 'TOOL_RESULT_START'); i++) await sleep(20)
  } finally {
    await stored.close()
  }
  await server.kill()
  await sleep(2.5 * LEASE_MS)
  await server.start()
  const events = await started
  assert.is(events.at(-1), 'REPLY_END')
  const log = await a.session('s1').state()
  assert.is(log.status, 'idle')
  const check = natsStore({ servers: server.url, name: 'outage', leaseMs: LEASE_MS })
  try {
    const stored = await check.read('s1')
    const end = stored.at(-1)!
    assert.is(end.type === 'REPLY_END' && end.finished_reason, 'completed', `the reply completed: ${JSON.stringify(end)}`)
    assert.equal(checkLog(stored).violations, [])
    assert.not.ok(stored.some((e) => e.type === 'TOOL_RESULT_END' && e.state === 'interrupted'), 'nobody closed it as cut')
  } finally {
    await check.close()
  }
})

if (natsServerInstalled()) test.run()
else process.stdout.write('skipping spec/nats/outage.spec.ts: nats-server is not installed (set NATS_SERVER).\n')
