// Sub-agents in a hub on PostgreSQL: the contract of spec/subagents (sessions of the store,
// answerable from the root or their own session, in the next process), a tree owned by another
// process answered from here (routed to the root's owner), and crash = interrupt for trees: the
// owner SIGKILLed while a sub-sub-agent's tool runs, a live hub's sweeper closes the whole tree.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createHub, replay, type SessionStore } from '../../lib/index.js'
import { postgresStore } from '../../lib/postgres.js'
import { sessionTreeAgent } from '../helpers/sessionModel.js'
import { checkClosedTree, checkStoredLog, childOf, eventually, startedChild } from '../subagents/helpers/hubTree.js'
import { hubTreeContract } from '../subagents/helpers/hubTreeContract.js'
import { withChildren } from './helpers/children.js'
import { DATABASE_URL, dropSchemas, freshStore, newSchema, postgresAvailable } from './helpers/db.js'

if (postgresAvailable('spec/postgres/subagents.spec.ts')) {
  const schemas = new Map<string, string>()
  const contract = hubTreeContract('postgres', async (key) => {
    if (!schemas.has(key)) {
      schemas.set(key, newSchema())
      return freshStore({}, schemas.get(key))
    }
    return postgresStore({ connectionString: DATABASE_URL, schema: schemas.get(key) })
  }, { durable: true })
  contract.after(dropSchemas)
  contract.run()

  const test = suite('postgres/subagents across processes')
  const pg = withChildren(test)
  /** A hub of this process on the test's schema (its own store: closing the hub closes it). */
  const localHub = (sweepMs: number | false = false) => createHub({ store: postgresStore({ connectionString: DATABASE_URL, schema: pg.schema }), agent: sessionTreeAgent(1), sweepMs })
  const waitingIn = async (store: SessionStore, session_id: string) => replay(await store.read(session_id)).waiting_for

  test("a tree owned by another process: its sub-agent's call is answered from here, via the root's session or the sub-agent's own (routed to the owner)", async () => {
    const owner = await pg.child('tree')
    const hub = localHub()
    try {
      for (const via of ['root', 'child'] as const) {
        const { session_id } = await pg.store.create()
        await owner.request('reply', session_id, { input: 'delegate ask /a' }).answer
        const child = childOf(await pg.store.read(session_id))
        const [call] = await waitingIn(pg.store, child)
        assert.is(call?.name, 'delete_file')
        await hub.session(via === 'root' ? session_id : child).approve(call.id)
        await eventually(`the root is idle (approved via the ${via})`, async () => (await pg.store.info(session_id)).status === 'idle')
        const root = await pg.store.read(session_id)
        assert.ok(root.some((e) => e.type === 'TOOL_RESULT_END' && e.state === 'success'), "the sub-agent's end answered the root's call")
        for (const id of [session_id, child]) checkStoredLog(await pg.store.read(id), id)
      }
    } finally {
      await hub.close()
    }
  })

  test("crash = interrupt for trees: the owner SIGKILLed while a sub-sub-agent's tool runs; a live hub's sweeper closes the tree deepest first, every call answered", async () => {
    const owner = await pg.child('tree')
    const { session_id } = await pg.store.create()
    owner.request('reply', session_id, { input: 'delegate delegate slow 60000' })
    const ids = [session_id]
    await eventually('the leaf runs its tool', async () => {
      const next = await startedChild(pg.store, ids.at(-1)!)
      if (next && ids.length < 3) ids.push(next)
      return ids.length === 3 && (await pg.store.read(ids[2])).some((e) => e.type === 'TOOL_RESULT_START')
    })
    await pg.kill(owner)
    for (const id of ids) assert.is((await pg.store.info(id)).status, 'running', `${id} was cut running`)
    const hub = localHub(50)
    try {
      await eventually('the sweeper closed the tree', async () => (await Promise.all(ids.map((id) => pg.store.info(id)))).every((i) => i.status === 'idle'), 6000)
      await checkClosedTree(pg.store, ids)
    } finally {
      await hub.close()
    }
  })

  test.run()
}
