// Issue 28 (hostile input): an imported log never leaks another session's data. A crafted root log
// whose sub-agent call names, as its `child_session_id`, the paused sub-agent of ANOTHER tree (whose
// session's `metadata.parent` names a call of that other tree) does not take that sub-agent in:
// waiting, tree, follow with descendants, opening the crafted root (interrupt), deleting and forking it treat
// the call as one whose sub-agent is missing, and the other tree is left as it was.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { Subscription } from 'rxjs'
import { createHub, forkTree, memoryStore, replay, type AgentEvent, type SessionStore } from '../../lib/index.js'
import { directoryStore } from '../../lib/node.js'
import { tempDir } from '../log/helpers/files.js'
import { sessionTreeAgent } from '../helpers/sessionModel.js'
import { importLog, settles } from './linksContract.js'

/** A root paused on a sub-agent call whose sub-agent waits for an approval: the root, its sub-agent, the root's log. */
const pausedTree = async (hub: ReturnType<typeof createHub>, store: SessionStore, task: string) => {
  const { session_id: root } = await hub.create()
  await hub.session(root).reply(`delegate ask ${task}`)
  const events = await store.read(root)
  const child = events.find((e) => e.type === 'TOOL_RESULT_START')!.metadata.child_session_id as string
  return { root, child, events }
}

/** The events `follow({ descendants: true })` of `session_id` gives up to its own last stored event (`last`). */
const followedUpTo = (hub: ReturnType<typeof createHub>, session_id: string, last: number) =>
  new Promise<AgentEvent[]>((resolve, reject) => {
    const seen: AgentEvent[] = []
    const subscription: Subscription = hub.session(session_id).follow({ descendants: true }).subscribe({
      next: (event) => {
        seen.push(event)
        if (event.metadata.session_id === undefined && event.metadata.seq === last) queueMicrotask(() => (subscription.unsubscribe(), resolve(seen)))
      },
      error: reject,
    })
  })

const crossTree = (name: string, makeStore: () => Promise<SessionStore>) => {
  const test = suite(`hub/crossTree (${name})`)

  /** Two paused trees in one hub, and a root imported as `crafted`: the first tree's root log, its sub-agent call naming the other tree's sub-agent. */
  const setup = async () => {
    const store = await makeStore()
    const hub = createHub({ store, sweepMs: false, agent: sessionTreeAgent(1) })
    const mine = await pausedTree(hub, store, '/mine')
    const other = await pausedTree(hub, store, '/other')
    const crafted = `crafted-${process.pid}-${Date.now()}`
    await importLog(store, crafted, mine.events.map((e) => (e.type === 'TOOL_RESULT_START' ? { ...e, metadata: { ...e.metadata, child_session_id: other.child } } : e)))
    const otherWaiting = await hub.session(other.root).waiting()
    assert.equal(otherWaiting.map((c) => c.session_id), [other.child], "the other tree waits on its sub-agent's approval")
    /** The other tree is as it was: its sub-agent's log, what it waits for, and it goes on to its end. */
    const unchanged = async (before: AgentEvent[]) => {
      assert.equal(await store.read(other.child), before, "the other tree's sub-agent's log is as it was")
      assert.equal(await hub.session(other.root).waiting(), otherWaiting, 'the other tree waits for the same calls')
      const approved = await settles(hub.session(other.root).approve(otherWaiting[0]), 'approve() in the other tree')
      assert.is((approved as { text?: string }).text, 'done', 'the other tree goes on to its end')
      await hub.close()
    }
    return { store, hub, mine, other, crafted, before: await store.read(other.child), unchanged }
  }

  test("waiting() of a crafted root whose call names another tree's paused sub-agent lists only its own call", async () => {
    const { hub, crafted, before, unchanged } = await setup()
    const waiting = await settles(hub.session(crafted).waiting(), 'waiting()')
    assert.ok(waiting.length > 0, 'the crafted root still lists its own waiting call')
    assert.equal(waiting.map((c) => c.session_id), waiting.map(() => crafted), "waiting() lists no call of the other tree's sub-agent")
    await unchanged(before)
  })

  test("tree() of the crafted root takes in no session of the other tree", async () => {
    const { hub, crafted, before, unchanged } = await setup()
    const tree = await settles(hub.session(crafted).tree(), 'tree()')
    assert.equal(tree.children, [], "tree() takes in no session of the other tree")
    await unchanged(before)
  })

  test("follow({ descendants }) of the crafted root gives no event of the other tree", async () => {
    const { hub, mine, crafted, before, unchanged } = await setup()
    const followed = await settles(followedUpTo(hub, crafted, mine.events.length), 'follow({ descendants })')
    assert.equal(followed.filter((e) => e.metadata.session_id !== undefined).map((e) => e.metadata.session_id), [], "follow({ descendants }) gives no event of the other tree's sub-agent")
    await unchanged(before)
  })

  test("interrupting, then deleting the crafted root leaves the other tree's sub-agent as it was", async () => {
    const { store, hub, other, crafted, before, unchanged } = await setup()
    await settles(hub.session(crafted).interrupt(), 'interrupt()')
    assert.is(replay(await store.read(other.child)).status, 'paused', "interrupting the crafted root leaves the other tree's sub-agent paused")
    await settles(hub.delete(crafted), 'delete()')
    await unchanged(before)
  })

  test("forking the crafted root forks no session of the other tree", async () => {
    const { store, hub, mine, crafted, before, unchanged } = await setup()
    const count = async () => (await store.list({ limit: 1000 })).items.length
    const sessions = await count()
    const forked = await settles(forkTree(store, crafted, mine.events.length, sessionTreeAgent(1)), 'forkTree()')
    assert.is(await count(), sessions + 1, 'only the crafted root is forked')
    assert.equal((await hub.session(forked).tree()).children, [], "the fork takes in no session of the other tree")
    await unchanged(before)
  })

  return test
}

crossTree('memory', async () => memoryStore()).run()
crossTree('directory', async () => directoryStore(tempDir())).run()
