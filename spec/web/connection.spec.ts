// remoteAgent.connection$ (what the page's "connection lost" banner reads): connecting before the
// first event stream, live while following, dropped when the server goes away, live again once
// it is back, with the log caught up and no event twice.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createHub, createServer, memoryStore, remoteAgent, type RemoteConnection } from '../../lib/index.js'
import { listen } from '../../lib/node.js'
import { playbookAgent } from './helpers/playbook.js'

const test = suite('web/connection')

const next = (seen: RemoteConnection[], value: RemoteConnection, from: number) => new Promise<void>((resolve, reject) => {
  const started = Date.now()
  const poll = () => (seen.indexOf(value, from) >= 0 ? resolve() : Date.now() - started > 5000 ? reject(new Error(`no "${value}" after ${JSON.stringify(seen)}`)) : setTimeout(poll, 10))
  poll()
})

test('connection$ goes connecting -> live -> dropped -> live across a server restart', async () => {
  const hub = createHub({ store: memoryStore(), agent: () => playbookAgent() })
  const handler = createServer({ hub })
  let served = await listen(handler, { port: 0 })
  const port = Number(new URL(served.url).port)
  const { session_id } = await hub.create()
  await hub.session(session_id).reply('hello')
  const remote = remoteAgent({ url: served.url, session: session_id })
  const seen: RemoteConnection[] = []
  remote.connection$.subscribe((c) => seen.push(c))
  try {
    assert.is(seen[0], 'connecting')
    await next(seen, 'live', 1)
    await served.close()
    await next(seen, 'dropped', 2)
    await hub.session(session_id).reply('hello')
    served = await listen(handler, { port })
    await next(seen, 'live', 3)
    const state = await remote.sync()
    assert.equal(state, await hub.session(session_id).state())
    assert.is(new Set(remote.log.map((e) => e.id)).size, remote.log.length)
    assert.equal(seen.slice(0, 4), ['connecting', 'live', 'dropped', 'live'])
  } finally {
    remote.close()
    await served.close()
    await hub.close()
  }
})

test.run()
