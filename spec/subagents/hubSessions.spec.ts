import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createHub, memoryStore, replay } from '../../lib/index.js'
import { directoryStore } from '../../lib/node.js'
import { crashCopy, tempDir } from '../log/helpers/files.js'
import { sessionTreeAgent } from '../helpers/sessionModel.js'
import { checkClosedTree, eventually, startedChild } from './helpers/hubTree.js'
import { hubTreeContract } from './helpers/hubTreeContract.js'

hubTreeContract('memory', async () => memoryStore(), { durable: false }).run()

const dirs = new Map<string, string>()
hubTreeContract('directory', async (key) => {
  if (!dirs.has(key)) dirs.set(key, tempDir())
  return directoryStore(dirs.get(key)!)
}, { durable: true }).run()

// Crash = interrupt for trees on the directory store: the files as a SIGKILL of the owner leaves
// them (every log of the tree ends inside a running reply, each lock naming a dead pid); a live
// hub's sweeper closes the whole tree as a Stop would, whichever of its sessions it finds first.
const crash = suite('subagents/hub sessions (directory): crash = interrupt')

crash("the owner dies while a sub-sub-agent's tool runs: the sweeper closes the tree deepest first, every call answered", async () => {
  const dir = tempDir()
  const first = createHub({ store: directoryStore(dir), agent: sessionTreeAgent(1), sweepMs: false })
  const { session_id } = await first.create()
  const store = directoryStore(dir)
  const running = (async () => {
    for await (const _ of first.session(session_id).replyStream('delegate delegate slow 60000')) void _
  })()
  const ids = [session_id]
  await eventually('the leaf runs its tool', async () => {
    const next = await startedChild(store, ids.at(-1)!)
    if (next && ids.length < 3) ids.push(next)
    return ids.length === 3 && (await store.read(ids[2])).some((e) => e.type === 'TOOL_RESULT_START')
  })
  const after = crashCopy(dir)
  await first.close()
  await running.catch(() => undefined)
  await store.close()
  const next = directoryStore(after)
  for (const id of ids) assert.is((await next.info(id)).status, 'running', `${id} was cut running`)
  const hub = createHub({ store: next, agent: sessionTreeAgent(1), sweepMs: 20 })
  await eventually('the sweeper closed the tree', async () => (await Promise.all(ids.map((id) => next.info(id)))).every((i) => i.status === 'idle'))
  await checkClosedTree(next, ids)
  await hub.close()
})

crash('the owner dies while an approved sub-agent runs and the root waits for it: the root is interrupted too (as a Stop), not resumed', async () => {
  const dir = tempDir()
  const first = createHub({ store: directoryStore(dir), agent: sessionTreeAgent(1), sweepMs: false })
  const { session_id } = await first.create()
  const root = first.session(session_id)
  await root.reply('delegate asklong 60000')
  const [call] = (await root.state()).waiting_for
  assert.is(call?.name, 'delegate', 'the root waits for its sub-agent')
  const store = directoryStore(dir)
  const child = (await startedChild(store, session_id))!
  const [asked] = replay(await store.read(child)).waiting_for
  await root.dispatch({ approve: asked.id })
  await eventually("the sub-agent's tool runs", async () => (await store.read(child)).some((e) => e.type === 'TOOL_RESULT_START'))
  const after = crashCopy(dir)
  await first.close()
  await store.close()
  const next = directoryStore(after)
  assert.is((await next.info(session_id)).status, 'paused')
  assert.is((await next.info(child)).status, 'running')
  const hub = createHub({ store: next, agent: sessionTreeAgent(1), sweepMs: 20 })
  await eventually('the sweeper closed the tree', async () => (await Promise.all([session_id, child].map((id) => next.info(id)))).every((i) => i.status === 'idle'))
  await checkClosedTree(next, [session_id, child])
  await hub.close()
})

crash.run()
