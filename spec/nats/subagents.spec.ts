// Sub-agents in a hub on NATS JetStream: the contract of spec/subagents (sessions of the store,
// answerable from the root or their own session, in the next hub), and a tree owned by one hub
// answered through another (its own connection and owner lease, as another process would).
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createHub, replay } from '../../lib/index.js'
import { sessionTreeAgent } from '../helpers/sessionModel.js'
import { checkStoredLog, childOf, eventually } from '../subagents/helpers/hubTree.js'
import { hubTreeContract } from '../subagents/helpers/hubTreeContract.js'
import { dropNames, freshStore, natsAvailable, newName } from './helpers/server.js'

if (natsAvailable('spec/nats/subagents.spec.ts')) {
  const names = new Map<string, string>()
  const contract = hubTreeContract('nats', async (key) => {
    if (!names.has(key)) names.set(key, newName())
    return freshStore({}, names.get(key))
  }, { durable: true })
  contract.after(dropNames)
  contract.run()

  const test = suite('nats/subagents across hubs')
  test.after(dropNames)

  test("a tree owned by hub A: its sub-agent's call is answered through hub B, via the root's session or the sub-agent's own", async () => {
    const name = newName()
    const storeA = freshStore({}, name)
    const storeB = freshStore({}, name)
    const a = createHub({ store: storeA, agent: sessionTreeAgent(1), sweepMs: false })
    const b = createHub({ store: storeB, agent: sessionTreeAgent(1), sweepMs: false })
    try {
      for (const via of ['root', 'child'] as const) {
        const { session_id } = await a.create()
        await a.session(session_id).reply('delegate ask /a')
        const child = childOf(await storeB.read(session_id))
        const [call] = replay(await storeB.read(child)).waiting_for
        await b.session(via === 'root' ? session_id : child).approve(call.id)
        await eventually(`the root is idle (approved via the ${via})`, async () => (await storeB.info(session_id)).status === 'idle')
        assert.ok((await storeB.read(session_id)).some((e) => e.type === 'TOOL_RESULT_END' && e.state === 'success'), "the sub-agent's end answered the root's call")
        for (const id of [session_id, child]) checkStoredLog(await storeB.read(id), id)
      }
    } finally {
      await b.close()
      await a.close()
    }
  })

  test.run()
}
