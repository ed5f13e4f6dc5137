// Sub-agents in a hub on PostgreSQL: the contract of spec/subagents (sessions of the store,
// answerable from the root or their own session, in the next process), a tree owned by another
// process answered from here (routed to the root's owner; what it waits for read from the logs,
// and an answer's stream following the root's reply), and crash = interrupt for trees: the
// owner SIGKILLed while a sub-sub-agent's tool runs, a live hub's sweeper closes the whole tree.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createHub, replay, UserConfirmResultEvent, type OutputEvent, type SessionStore } from '../../lib/index.js'
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

  test("a tree owned by another process: waiting() here lists a sub-sub-agent's call; an answer streamed from here follows the root's reply with the tree's events, and ends where the tree waits again", async () => {
    const owner = await pg.child('tree')
    const hub = localHub()
    try {
      const { session_id } = await pg.store.create()
      await owner.request('reply', session_id, { input: 'delegate delegate asktwice /a' }).answer
      const child = childOf(await pg.store.read(session_id))
      const grandchild = childOf(await pg.store.read(child))
      const waiting = await hub.session(session_id).waiting()
      assert.equal(waiting.map((c) => [c.name, c.state, c.session_id]), [['delete_file', 'asking', grandchild]], 'the deepest call, with its session')
      const answer = async (call: (typeof waiting)[number]) => {
        const { reply_id } = await hub.session(grandchild).state()
        const { session_id: _waitsIn, ...tool_call } = call
        const input = UserConfirmResultEvent({ reply_id: reply_id!, confirm_results: [{ confirmed: true, tool_call }] })
        const events: OutputEvent[] = []
        for await (const event of hub.session(session_id).replyStream(input, { descendants: true })) events.push(event)
        return events
      }
      // The grandchild asks again: the stream ends with its new confirmation request, the root still paused.
      const first = await answer(waiting[0])
      assert.equal(first.filter((e) => e.metadata.session_id === undefined).map((e) => e.type), [], "the root's reply did not move")
      assert.is(first.at(-1)!.type, 'REQUIRE_USER_CONFIRM')
      assert.is(first.at(-1)!.metadata.session_id, grandchild)
      const again = await hub.session(session_id).waiting()
      assert.equal(again.map((c) => [c.name, c.session_id]), [['delete_file', grandchild]])
      assert.is.not(again[0].id, waiting[0].id)
      // Answered again: the tree ends, the sub-agents' ends first, then the root's REPLY_END.
      const second = await answer(again[0])
      const ends = second.filter((e) => e.type === 'REPLY_END').map((e) => e.metadata.session_id ?? session_id)
      assert.equal(ends, [grandchild, child, session_id])
      assert.is(second.at(-1)!.type, 'REPLY_END')
      assert.equal(await hub.session(session_id).waiting(), [])
      for (const id of [session_id, child, grandchild]) checkStoredLog(await pg.store.read(id), id)
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
