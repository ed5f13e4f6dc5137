// A reply that fails on its log in a live process (a 1.2 MB tool result, over the server's
// max_payload: LOG_UNAVAILABLE) does not leave its session `running`: the lease is let go as
// abandoned, and a sweeper (here the same hub's) closes the cut reply; the log passes its checks.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { z } from 'zod'
import { callTool, createHub, defineTool, say, scriptedModel, usage } from '../../lib/index.js'
import { checkLog } from '../../lib/core/logCheck.js'
import { dropNames, freshStore, natsAvailable, newName } from './helpers/server.js'

const test = suite('nats/failed-reply')
test.after(dropNames)

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

test('a tool result over max_payload fails the reply with LOG_UNAVAILABLE; the session is then closed, not left running', async () => {
  const name = newName()
  const big = defineTool({ name: 'big', description: 'A large result', input: z.object({}), execute: () => 'x'.repeat(1_200_000) })
  const hub = createHub({
    store: freshStore({}, name), sweepMs: 100,
    agent: () => ({ name: 'Friday', model: scriptedModel([[...callTool('c1', 'big', {}), usage(1, 1)], [...say('done'), usage(1, 1)]], { onExhausted: 'repeat-last' }), tools: [big] }),
  })
  const reader = freshStore({}, name)
  try {
    await hub.create({ session_id: 's1' })
    const failure = await hub.session('s1').reply('go').then(() => null, (error: { code?: string; message?: string }) => error)
    assert.is(failure?.code, 'LOG_UNAVAILABLE', `the reply fails with a clear code: ${failure?.message}`)
    assert.match(failure!.message!, /max_payload/)
    let status = (await reader.info('s1')).status
    for (let i = 0; i < 250 && status === 'running'; i++) {
      await sleep(20)
      status = (await reader.info('s1')).status
    }
    assert.is.not(status, 'running', `the session is closed (or visibly damaged), not left running; its log ends ${(await reader.read('s1')).slice(-4).map((e) => e.type).join(' ')}; orphans: ${JSON.stringify(await reader.orphans?.({ limit: 10 }))}`)
    const events = await reader.read('s1')
    assert.equal(checkLog(events).violations, [])
    const end = events.at(-1)!
    assert.is(end.type, 'REPLY_END', 'the cut reply was closed')
  } finally {
    await reader.close()
    await hub.close()
  }
})

if (natsAvailable('spec/nats/failedReply.spec.ts')) test.run()
