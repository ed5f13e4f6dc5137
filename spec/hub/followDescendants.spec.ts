// A hub session's follow({ descendants, fromSeq }) resuming inside a reply: the sub-agents its calls
// started before `fromSeq` are followed from their start, tagged with their session, whether the
// reply still runs or has ended since (a client whose stream was cut may come back late).
import { firstValueFrom, takeWhile, toArray } from 'rxjs'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createHub, memoryStore, type AgentEvent } from '../../lib/index.js'
import { sessionTreeAgent } from '../helpers/sessionModel.js'

const test = suite('hub/follow descendants')

const tagOf = (e: AgentEvent) => e.metadata.session_id as string | undefined
const untag = ({ metadata: { session_id: _, ...metadata }, ...e }: AgentEvent) => ({ ...e, metadata })

test('follow({ descendants, fromSeq }) from after a sub-agent call started, once the reply has ended: the sub-agent\'s events from its start, then the session\'s own from fromSeq', async () => {
  const store = memoryStore()
  const hub = createHub({ store, agent: sessionTreeAgent(1), sweepMs: false })
  try {
    const { session_id } = await hub.create()
    await hub.session(session_id).reply('delegate stream 3')
    const log = await store.read(session_id)
    const call = log.find((e) => e.type === 'TOOL_RESULT_START' && typeof e.metadata.child_session_id === 'string')!
    const child = call.metadata.child_session_id as string
    const fromSeq = call.metadata.seq as number
    const ownEnded = (e: AgentEvent) => !(e.type === 'REPLY_END' && tagOf(e) === undefined)
    const events = await firstValueFrom(hub.session(session_id).follow({ descendants: true, fromSeq }).pipe(takeWhile(ownEnded, true), toArray()))
    assert.equal(events.filter((e) => tagOf(e) === child).map(untag), await store.read(child), 'every event of the sub-agent, in order')
    assert.equal(events.filter((e) => tagOf(e) === undefined), log.slice(fromSeq), 'the session\'s own events after fromSeq')
    assert.ok(events.every((e) => tagOf(e) === undefined || tagOf(e) === child))
  } finally {
    await hub.close()
  }
})

test.run()
