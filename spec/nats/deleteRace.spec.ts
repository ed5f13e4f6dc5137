// A delete and an open of one session on NATS, overlapping in one process (a hub's sub-agent opens
// go straight to the store): one of them wins. A delete that succeeded leaves nothing an open could
// append to: the session created again under that id starts empty; a sub-agent's session reopened
// with its root while it is deleted is the same case.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createHub, type AgentEvent } from '../../lib/index.js'
import type { NatsStore } from '../../lib/nats.js'
import { sessionTreeAgent } from '../helpers/sessionModel.js'
import { dropNames, freshStore, natsAvailable, newName } from './helpers/server.js'

const test = suite('nats/delete-race')
let store: NatsStore
test.before.each(async () => {
  store = freshStore()
  await store.migrate()
})
test.after.each(async () => {
  await store.close()
})
test.after(dropNames)

const settle = (p: Promise<unknown>) => p.then(() => null, (error: { code?: string }) => error.code ?? String(error))
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const event = (i: number): AgentEvent => ({ id: `ev-${i}`, created_at: new Date().toISOString(), metadata: { seq: 1 }, type: 'CUSTOM', name: 'opened', value: { i } } as AgentEvent)

test('store.delete and store.open overlapping: never both succeed; a deleted id created again holds nothing of it', async () => {
  for (let round = 0; round < 24; round++) {
    const id = `race-${round}`
    await store.create({ session_id: id })
    const open = async () => {
      if (round % 3 === 1) await sleep(round % 2)
      const log = await store.open(id)
      try {
        log.append([event(round)], { expectedSeq: 0 })
        await log.flush()
      } finally {
        await log.close()
      }
    }
    const remove = async () => {
      if (round % 3 === 2) await sleep(round % 2)
      await store.delete(id)
    }
    const [opened, deleted] = await Promise.all([settle(open()), settle(remove())])
    assert.ok(opened === null || deleted === null, `one of them wins (round ${round}: open ${opened}, delete ${deleted})`)
    assert.not.ok(opened === null && deleted === null, `not both (round ${round})`)
    if (deleted !== null) {
      assert.is(deleted, 'SESSION_BUSY', `a refused delete says why (round ${round})`)
      continue
    }
    assert.ok(['SESSION_BUSY', 'NOT_FOUND'].includes(opened!), `a refused open says why: ${opened}`)
    await store.create({ session_id: id })
    assert.equal(await store.read(id), [], `the session created again under ${id} starts empty`)
  }
})

test('a sub-agent\'s session deleted while its root is reopened (its tree restored): one wins, and a deleted one created again is empty', async () => {
  // A hub closes its store: each hub gets a store of its own on the same name.
  const name = newName()
  const hub = createHub({ store: freshStore({}, name), agent: sessionTreeAgent(1) })
  await hub.create({ session_id: 'root' })
  await hub.session('root').reply('delegate ask /tmp/q')
  await hub.close()
  const named = freshStore({}, name)
  const child = (await named.list()).items.find((s) => s.metadata.parent)!.session_id
  await named.close()
  for (let round = 0; round < 6; round++) {
    const store = freshStore({}, name)
    const again = createHub({ store, agent: sessionTreeAgent(1) })
    try {
      // Interrupting the root opens it, and its tree with it: the child's log is opened by the store directly.
      const [interrupted, deleted] = await Promise.all([settle(again.session('root').interrupt()), settle((async () => {
        if (round % 2) await sleep(round)
        await again.delete(child)
      })())])
      if (deleted === null) {
        await sleep(50)
        await store.create({ session_id: child })
        assert.equal(await store.read(child), [], `the child created again is empty (round ${round}, interrupt: ${interrupted})`)
        return
      }
      assert.is(deleted, 'SESSION_BUSY', `a refused delete says why (round ${round})`)
    } finally {
      await again.close()
    }
  }
})

if (natsAvailable('spec/nats/deleteRace.spec.ts')) test.run()
