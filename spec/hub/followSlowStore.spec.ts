// Issue 28 item 7: a slow store must not drop a sub-agent from a follower. followTree waits for a
// sub-agent's session for as long as its parent's call is open (here the store shows the session
// only after 2.5 s, longer than the old 200 x 10 ms), then delivers every event of it in order.
import { firstValueFrom, takeWhile, toArray, throwError } from 'rxjs'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { AgentError, createHub, followTree, memoryStore, type SessionStore } from '../../lib/index.js'
import { sessionTreeAgent } from '../helpers/sessionModel.js'

test("a sub-agent's session that appears late is followed: its events come, tagged, before its call's end", async () => {
  const store = memoryStore()
  const hub = createHub({ store, sweepMs: false, agent: sessionTreeAgent(1) })
  const { session_id } = await hub.create()
  await hub.session(session_id).reply('delegate stream 3')
  const child = (await store.read(session_id)).find((e) => e.type === 'TOOL_RESULT_START')!.metadata.child_session_id as string
  const childEvents = (await store.read(child)).length
  const shownAt = Date.now() + 2500
  // The same sessions, but the sub-agent's is NOT_FOUND to a follow for a while (a slow replica).
  const slow: SessionStore = { ...store, follow: (id, options) => (id === child && Date.now() < shownAt ? throwError(() => new AgentError('NOT_FOUND', `No session ${id}.`)) : store.follow(id, options)) }
  const events = await firstValueFrom(followTree(slow, session_id).pipe(takeWhile((e) => !(e.type === 'REPLY_END' && e.metadata.session_id === undefined), true), toArray()))
  const tagged = events.filter((e) => e.metadata.session_id === child)
  assert.is(tagged.length, childEvents, "every event of the sub-agent's session came")
  const end = events.findIndex((e) => e.type === 'TOOL_RESULT_END' && e.metadata.session_id === undefined)
  assert.ok(events.findIndex((e) => e.type === 'REPLY_END' && e.metadata.session_id === child) < end, "the sub-agent's end comes before its call's")
  await hub.close()
})

test.run()
