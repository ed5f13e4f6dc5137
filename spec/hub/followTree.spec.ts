// followTree's order when the sessions' streams arrive in any order (each session is its own follow
// of the store, as on PostgreSQL or NATS): a sub-agent's events come before the events of its
// parent that they caused (its call's park after its pause, its call's end after its REPLY_END, at
// every depth), events that do not
// depend on it pass as they come, and a sub-agent whose session ends without a REPLY_END (deleted)
// holds nothing back.
import { Subject, type Observable } from 'rxjs'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { followTree, type AgentEvent, type SessionStore } from '../../lib/index.js'
import { ev } from '../helpers/events.js'

const test = suite('hub/followTree')

/**
 * A store whose follows are subjects the spec feeds, in whatever order it likes. Each sub-agent's
 * session names its call as its parent (`info`), as the hub records it: the call that named it when
 * fed, or as given in `parents`.
 */
const manualStore = (parents: Record<string, { session_id: string; reply_id: string; tool_call_id: string }> = {}) => {
  const streams = new Map<string, Subject<AgentEvent>>()
  const stream = (id: string) => {
    let subject = streams.get(id)
    if (!subject) streams.set(id, (subject = new Subject<AgentEvent>()))
    return subject
  }
  const store = {
    follow: (id: string): Observable<AgentEvent> => stream(id).asObservable(),
    info: async (id: string) => ({ session_id: id, metadata: parents[id] ? { parent: parents[id] } : {} }),
  } as unknown as SessionStore
  const feed = (id: string, ...events: AgentEvent[]) =>
    events.forEach((e) => {
      if (e.type === 'TOOL_RESULT_START' && typeof e.metadata.child_session_id === 'string') parents[e.metadata.child_session_id] ??= { session_id: id, reply_id: e.reply_id, tool_call_id: e.tool_call_id }
      stream(id).next(e)
    })
  return { store, feed, end: (id: string) => stream(id).complete() }
}

const reply = (session_id: string, reply_id: string) => ev('REPLY_START', { session_id, reply_id, name: 'A', role: 'assistant' })
const replyEnd = (session_id: string, reply_id: string) => ev('REPLY_END', { session_id, reply_id, finished_reason: 'completed', error: null })
const callStart = (reply_id: string, tool_call_id: string, child?: string) =>
  ev('TOOL_RESULT_START', { reply_id, tool_call_id, tool_call_name: child ? 'research' : 'plain', ...(child && { metadata: { child_session_id: child } }) })
const callEnd = (reply_id: string, tool_call_id: string) => ev('TOOL_RESULT_END', { reply_id, tool_call_id, state: 'success', metadata: {} })
const text = (reply_id: string, block_id: string) => ev('TEXT_BLOCK_START', { reply_id, block_id })

/** The events seen, as `session:type:id-ish`. */
const seen = (events: AgentEvent[]) => events.map((e) => `${(e.metadata.session_id as string | undefined) ?? 'root'}:${e.type}${'tool_call_id' in e ? `:${e.tool_call_id}` : ''}`)

const flush = () => new Promise((resolve) => setTimeout(resolve, 0))

test("a sub-agent whose stream lags: its call's end and everything after wait for its REPLY_END; a plain call's events pass meanwhile", async () => {
  const { store, feed } = manualStore()
  const out: AgentEvent[] = []
  const sub = followTree(store, 'root').subscribe((e) => out.push(e))
  feed('root', reply('root', 'r'), callStart('r', 'c1', 'kid'))
  await flush()
  feed('root', callStart('r', 'c2'), callEnd('r', 'c2'), callEnd('r', 'c1'), replyEnd('root', 'r'))
  await flush()
  assert.equal(seen(out), ['root:REPLY_START', 'root:TOOL_RESULT_START:c1', 'root:TOOL_RESULT_START:c2', 'root:TOOL_RESULT_END:c2'], 'the call of the sub-agent waits')
  feed('kid', reply('kid', 'k'), text('k', 'b'))
  await flush()
  assert.equal(seen(out).slice(4), ['kid:REPLY_START', 'kid:TEXT_BLOCK_START'])
  feed('kid', replyEnd('kid', 'k'))
  await flush()
  assert.equal(seen(out).slice(6), ['kid:REPLY_END', 'root:TOOL_RESULT_END:c1', 'root:REPLY_END'])
  sub.unsubscribe()
})

test("two levels: the grandchild's REPLY_END, then the child's call end and REPLY_END, then the root's, whatever order the streams came in", async () => {
  const { store, feed } = manualStore()
  const out: AgentEvent[] = []
  const sub = followTree(store, 'root').subscribe((e) => out.push(e))
  feed('root', reply('root', 'r'), callStart('r', 'c1', 'kid'))
  await flush()
  feed('root', callEnd('r', 'c1'), replyEnd('root', 'r'))
  feed('kid', reply('kid', 'k'), callStart('k', 'd1', 'grandkid'))
  await flush()
  feed('kid', callEnd('k', 'd1'), replyEnd('kid', 'k'))
  await flush()
  assert.equal(seen(out), ['root:REPLY_START', 'root:TOOL_RESULT_START:c1', 'kid:REPLY_START', 'kid:TOOL_RESULT_START:d1'], 'nothing that the grandchild caused yet')
  feed('grandkid', reply('grandkid', 'g'), replyEnd('grandkid', 'g'))
  await flush()
  assert.equal(seen(out).slice(4), ['grandkid:REPLY_START', 'grandkid:REPLY_END', 'kid:TOOL_RESULT_END:d1', 'kid:REPLY_END', 'root:TOOL_RESULT_END:c1', 'root:REPLY_END'])
  sub.unsubscribe()
})

test('a sub-agent already running when the follow starts (open): its call waits for its REPLY_END too', async () => {
  const { store, feed } = manualStore({ kid: { session_id: 'root', reply_id: 'r', tool_call_id: 'c1' } })
  const out: AgentEvent[] = []
  const sub = followTree(store, 'root', { fromSeq: 5, open: [{ session_id: 'kid', parent: 'root', tool_call_id: 'c1', fromSeq: 3 }] }).subscribe((e) => out.push(e))
  await flush()
  feed('root', callEnd('r', 'c1'), replyEnd('root', 'r'))
  feed('kid', text('k', 'b'))
  await flush()
  assert.equal(seen(out), ['kid:TEXT_BLOCK_START'])
  feed('kid', replyEnd('kid', 'k'))
  await flush()
  assert.equal(seen(out).slice(1), ['kid:REPLY_END', 'root:TOOL_RESULT_END:c1', 'root:REPLY_END'])
  sub.unsubscribe()
})

test("a call naming another tree's session (whose parent is another call): that session is not followed and holds nothing back", async () => {
  const { store, feed } = manualStore({ stranger: { session_id: 'other', reply_id: 'o', tool_call_id: 'c1' } })
  const out: AgentEvent[] = []
  const sub = followTree(store, 'root').subscribe((e) => out.push(e))
  feed('root', reply('root', 'r'), callStart('r', 'c1', 'stranger'))
  await flush()
  feed('stranger', reply('stranger', 's'), text('s', 'b'))
  feed('root', callEnd('r', 'c1'), replyEnd('root', 'r'))
  await flush()
  assert.equal(seen(out), ['root:REPLY_START', 'root:TOOL_RESULT_START:c1', 'root:TOOL_RESULT_END:c1', 'root:REPLY_END'])
  sub.unsubscribe()
})

const call = (id: string, name: string) => ({ type: 'tool_call' as const, id, name, input: '{}', state: 'submitted' as const, suggested_rules: [], created_at: 't', finished_at: 't' })

test("a call parked with its sub-agent: the parent's REQUIRE_EXTERNAL_EXECUTION waits for the sub-agent's pause", async () => {
  const { store, feed } = manualStore()
  const out: AgentEvent[] = []
  const sub = followTree(store, 'root').subscribe((e) => out.push(e))
  feed('root', reply('root', 'r'), callStart('r', 'c1', 'kid'))
  await flush()
  feed('root', ev('REQUIRE_EXTERNAL_EXECUTION', { reply_id: 'r', tool_calls: [call('c1', 'research')] }))
  feed('kid', reply('kid', 'k'))
  await flush()
  assert.equal(seen(out), ['root:REPLY_START', 'root:TOOL_RESULT_START:c1', 'kid:REPLY_START'])
  feed('kid', ev('REQUIRE_USER_CONFIRM', { reply_id: 'k', tool_calls: [{ ...call('d1', 'delete_file'), state: 'asking' }] }))
  await flush()
  assert.equal(seen(out).slice(3), ['kid:REQUIRE_USER_CONFIRM', 'root:REQUIRE_EXTERNAL_EXECUTION'])
  sub.unsubscribe()
})

test("a sub-agent's follow that ends without its REPLY_END (its session deleted) holds nothing back", async () => {
  const { store, feed, end } = manualStore()
  const out: AgentEvent[] = []
  const sub = followTree(store, 'root').subscribe((e) => out.push(e))
  feed('root', reply('root', 'r'), callStart('r', 'c1', 'kid'))
  await flush()
  feed('root', callEnd('r', 'c1'), replyEnd('root', 'r'))
  await flush()
  assert.equal(seen(out).length, 2)
  end('kid')
  await flush()
  assert.equal(seen(out).slice(2), ['root:TOOL_RESULT_END:c1', 'root:REPLY_END'])
  sub.unsubscribe()
})

test.run()
