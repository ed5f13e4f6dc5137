// The session-store contract, run against every store (memory, directory, postgres): sessions are
// created, listed (newest first) and paged, read, followed and deleted; one writer at a time; appends name the position
// they expect; a restored session equals what was written; a reply cut mid-way is closed on restore;
// snapshots (where the store keeps them) let a restore fold only the tail.
import { isDeepStrictEqual } from 'node:util'
import { firstValueFrom, take, toArray } from 'rxjs'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { AgentError, createAgent, createEvent, counterClock, replay, UserConfirmResultEvent, UserMsg, type AgentEvent, type AgentState, type SessionStore } from '../../lib/index.js'
import { checkLog } from '../../lib/core/logCheck.js'
import { FOLD_VERSION } from '../../reducers/state.js'
import { sessionModel, sessionTools } from '../helpers/sessionModel.js'
import { rejectsWithCode as code } from '../helpers/expect.js'

export interface ContractOptions {
  /** The store keeps snapshots every this many events (it was made with that setting). */
  snapshotEvery?: number
  /** Replaces the text of the session's stored snapshot state with `edit(text)`, keeping its checksum right. */
  rewriteSnapshot?: (store: SessionStore, session_id: string, edit: (text: string) => string) => Promise<void>
}

/** The state a stored snapshot text holds, whether it carries a fold version or not. */
const savedState = (text: string): AgentState => {
  const saved = JSON.parse(text) as { fold?: number; state?: AgentState }
  return saved.fold === undefined ? (saved as AgentState) : saved.state!
}

/** What an older fold made of the same events: here, rounds counted otherwise (as before issue 20). */
const olderFold = (state: AgentState): AgentState => ({ ...state, cur_iter: state.cur_iter + 7 })

const olderSnapshots: [string, (text: string) => string][] = [
  ['without a fold version (saved before there were any)', (text) => JSON.stringify(olderFold(savedState(text)))],
  ['of an older fold version', (text) => JSON.stringify({ fold: FOLD_VERSION - 1, state: olderFold(savedState(text)) })],
]

const agentOn = (log: Awaited<ReturnType<SessionStore['open']>>, session_id: string) =>
  createAgent({ name: 'Friday', model: sessionModel(1), tools: sessionTools(), log, session_id })

/** Resolves once the clock has moved on, so the next session starts later than the last one. */
const nextMillisecond = async () => {
  const now = Date.now()
  while (Date.now() <= now) await new Promise((resolve) => setTimeout(resolve, 1))
}

/** Every page of the store's sessions, `limit` at a time, following each page's `next`. */
const allPages = async (store: SessionStore, limit: number) => {
  const pages: Awaited<ReturnType<SessionStore['list']>>['items'][] = []
  let after: string | undefined
  do {
    const page = await store.list({ limit, after })
    pages.push(page.items)
    after = page.next
  } while (after !== undefined)
  return pages
}

export const storeContract = (name: string, make: () => Promise<SessionStore>, options: ContractOptions = {}) => {
  const test = suite(`stores/${name}`)
  let store: SessionStore
  test.before.each(async () => {
    store = await make()
  })
  test.after.each(async () => {
    await store.close()
  })

  test('create, info and list: newest first, paged, with status and metadata', async () => {
    for (const id of ['c', 'a', 'b']) {
      await store.create({ session_id: id, metadata: { owner: id } })
      await nextMillisecond()
    }
    const made = await store.create()
    assert.ok(made.session_id.length > 0, 'an id is made when none is given')
    const a = await store.info('a')
    assert.equal([a.session_id, a.status, a.last_seq, a.metadata], ['a', 'idle', 0, { owner: 'a' }])
    assert.ok(!Number.isNaN(Date.parse(a.created_at)) && !Number.isNaN(Date.parse(a.updated_at)))
    const ids = [made.session_id, 'b', 'a', 'c']
    const first = await store.list({ limit: 2 })
    assert.equal(first.items.map((s) => s.session_id), ids.slice(0, 2))
    const second = await store.list({ limit: 2, after: first.next })
    assert.equal(second.items.map((s) => s.session_id), ids.slice(2))
    assert.is(second.next, undefined, 'the last page has no next')
  })

  test('pages concatenate to every session newest first, none skipped or repeated', async () => {
    const made: string[] = [] // oldest first; ids neither in that order nor against it
    for (const id of ['m', 'e', 'x', 'b', 'q', 'a', 'z', 'k']) {
      made.push((await store.create({ session_id: id })).session_id)
      await nextMillisecond()
    }
    for (const limit of [1, 3, 8]) {
      const pages = await allPages(store, limit)
      const listed = pages.flat()
      assert.equal(listed.map((s) => s.session_id), [...made].reverse(), `pages of ${limit}`)
      assert.equal(pages.map((p) => p.length), Array.from({ length: Math.ceil(made.length / limit) }, (_, i) => Math.min(limit, made.length - i * limit)))
      assert.ok(listed.every((s, i) => i === 0 || Date.parse(listed[i - 1].created_at) >= Date.parse(s.created_at)), 'start times never rise')
    }
  })

  test('refuses a duplicate id, an invalid id, an unknown session and bad paging, changing nothing', async () => {
    await store.create({ session_id: 's1' })
    await code(store.create({ session_id: 's1' }), 'SESSION_EXISTS')
    for (const bad of ['../etc/passwd', '', 'a/b', '.hidden', 'x'.repeat(129), 'a\\b', 42 as unknown as string])
      await code(() => store.create({ session_id: bad }), 'INVALID_SESSION_ID')
    await code(store.open('nope'), 'NOT_FOUND')
    await code(store.read('nope'), 'NOT_FOUND')
    await code(store.info('nope'), 'NOT_FOUND')
    await code(store.delete('nope'), 'NOT_FOUND')
    await code(() => store.list({ limit: 0 }), 'INVALID_OPTION')
    for (const after of ['s1', 'not a cursor!', btoa('{"created_at":1}'), btoa('["yesterday","s1"]'), 7 as unknown as string]) {
      const error = await code(() => store.list({ after }), 'INVALID_INPUT')
      assert.match(error.message, /"next" of a previous page/)
    }
    for (const metadata of [{ note: 'a\u0000b' }, { 'k\u0000': 1 }, { deep: [{ x: '\u0000' }] }])
      await code(() => store.create({ session_id: 'nul', metadata }), 'INVALID_INPUT')
    await code(store.info('nul'), 'NOT_FOUND')
    assert.equal((await store.list()).items.map((s) => s.session_id), ['s1'])
  })

  test('one writer: a second open is SESSION_BUSY until the first closes', async () => {
    await store.create({ session_id: 's1' })
    const log = await store.open('s1')
    await code(store.open('s1'), 'SESSION_BUSY')
    await code(store.delete('s1'), 'SESSION_BUSY')
    await log.close()
    const again = await store.open('s1')
    await again.close()
  })

  test('append, read and follow; an append at a stale position is LOG_CONFLICT and adds nothing', async () => {
    await store.create({ session_id: 's1' })
    const log = await store.open('s1')
    const clock = counterClock('ev')
    const custom = (n: number): AgentEvent => createEvent(clock, 'CUSTOM', { name: 'note', value: { n }, metadata: { seq: n } })
    log.append([custom(1), custom(2)], { expectedSeq: 0 })
    const followed = firstValueFrom(store.follow('s1', { fromSeq: 1 }).pipe(take(3), toArray()))
    assert.throws(() => log.append([custom(2)], { expectedSeq: 1 }), (e: AgentError) => e.code === 'LOG_CONFLICT')
    log.append([custom(3)], { expectedSeq: 2 })
    log.append([custom(4)], { expectedSeq: 3 })
    await log.flush?.()
    assert.equal((await followed).map((e) => e.metadata.seq), [2, 3, 4])
    const read = await store.read('s1', { fromSeq: 2 })
    assert.equal(read.map((e) => (e.type === "CUSTOM" ? e.value.n : null)), [3, 4])
    assert.equal(JSON.stringify(await store.read('s1')), JSON.stringify(log.read()), 'a read returns exactly what was appended')
    assert.is((await store.info('s1')).last_seq, 4)
    await log.close()
  })

  test('a session restored from the store equals what was written; status follows the replies', async () => {
    await store.create({ session_id: 's1' })
    const log = await store.open('s1')
    const agent = agentOn(log, 's1')
    await agent.reply(UserMsg({ content: 'hello' }))
    await agent.reply(UserMsg({ content: 'ask /tmp/a' }))
    assert.is(agent.state.status, 'paused')
    await agent.flush()
    assert.is((await store.info('s1')).status, 'paused')
    const state = agent.state
    await agent.close()
    const restored = agentOn(await store.open('s1'), 's1')
    assert.ok(isDeepStrictEqual(restored.state, state), 'the restored state equals the written one')
    const events = await store.read('s1')
    assert.ok(isDeepStrictEqual(replay(JSON.parse(JSON.stringify(events))), state), 'replay(read) equals the state')
    await restored.reply(UserConfirmResultEvent({ reply_id: state.reply_id!, confirm_results: [{ confirmed: true, tool_call: state.waiting_for[0] }] }))
    assert.is(restored.state.status, 'idle')
    await restored.flush()
    assert.is((await store.info('s1')).status, 'idle')
    assert.equal(checkLog(await store.read('s1')).violations, [])
    await restored.close()
  })

  test('a reply cut mid-way (the writer gone) is closed as interrupted by the next writer', async () => {
    await store.create({ session_id: 's1' })
    const log = await store.open('s1')
    const agent = agentOn(log, 's1')
    for await (const e of agent.replyStream(UserMsg({ content: 'slow 5000' }))) if (e.type === 'TOOL_RESULT_START') break
    // The replyStream loop left early and interrupted; write a running reply by hand instead: a new
    // message whose reply is cut after its first model call starts.
    const clock = counterClock('cut')
    const seq = agent.state.seq
    const msg = UserMsg({ content: 'cut me' }, clock)
    const cut: AgentEvent[] = [
      createEvent(clock, 'USER_MESSAGE', { msg, metadata: { seq: seq + 1 } }),
      createEvent(clock, 'REPLY_START', { session_id: 's1', reply_id: 'r-cut', name: 'Friday', role: 'assistant', metadata: { seq: seq + 2 } }),
      createEvent(clock, 'MODEL_CALL_START', { reply_id: 'r-cut', model_name: 'm', metadata: { seq: seq + 3 } }),
      createEvent(clock, 'TEXT_BLOCK_START', { reply_id: 'r-cut', block_id: 'b1', metadata: { seq: seq + 4 } }),
    ]
    await agent.flush()
    log.append(cut, { expectedSeq: seq })
    await log.flush?.()
    await log.close()
    assert.is((await store.info('s1')).status, 'running')
    const next = agentOn(await store.open('s1'), 's1')
    assert.is(next.state.status, 'idle')
    await next.flush()
    const events = await store.read('s1')
    const end = events.at(-1)!
    assert.is(end.type === 'REPLY_END' && `${end.reply_id}:${end.finished_reason}`, 'r-cut:interrupted')
    assert.equal(checkLog(events).violations, [])
    assert.is((await store.info('s1')).status, 'idle')
    await next.reply(UserMsg({ content: 'after' }))
    assert.is(next.state.context.at(-1)!.finished_reason, 'completed')
    await next.close()
  })

  test('delete removes a session', async () => {
    await store.create({ session_id: 's1' })
    const log = await store.open('s1')
    await log.close()
    await store.delete('s1')
    await code(store.info('s1'), 'NOT_FOUND')
    await store.create({ session_id: 's1' })
    assert.equal(await store.read('s1'), [], 'a new session of that id starts empty')
  })

  if (options.snapshotEvery) {
    test('a snapshot lets a restore fold only the events after it, and equals the full fold', async () => {
      await store.create({ session_id: 's1' })
      const agent = agentOn(await store.open('s1'), 's1')
      for (let i = 0; i < 4; i++) await agent.reply(UserMsg({ content: `hello ${i}` }))
      const state = agent.state
      await agent.close()
      const log = await store.open('s1')
      const snapshot = log.snapshot?.()
      assert.ok(snapshot && snapshot.seq >= options.snapshotEvery!, `a snapshot at seq ${snapshot?.seq}`)
      const restored = agentOn(log, 's1')
      assert.ok(isDeepStrictEqual(restored.state, state))
      assert.ok(isDeepStrictEqual(replay(await store.read('s1')), state))
      await restored.close()
    })
  }

  for (const [what, edit] of options.snapshotEvery && options.rewriteSnapshot ? olderSnapshots : []) {
    test(`a snapshot ${what} is ignored: the state is the full fold, and the next snapshot replaces it`, async () => {
      await store.create({ session_id: 's1' })
      const agent = agentOn(await store.open('s1'), 's1')
      for (let i = 0; i < 4; i++) await agent.reply(UserMsg({ content: `hello ${i}` }))
      await agent.close()
      await options.rewriteSnapshot!(store, 's1', edit)
      if (store.state) assert.ok(isDeepStrictEqual(await store.state('s1'), replay(await store.read('s1'))), 'state() is the full fold')
      const restored = agentOn(await store.open('s1'), 's1')
      assert.ok(isDeepStrictEqual(restored.state, replay(await store.read('s1'))), 'the restored agent has the full fold')
      await restored.reply(UserMsg({ content: 'once more' }))
      await restored.close()
      let saved = ''
      await options.rewriteSnapshot!(store, 's1', (text) => (saved = text))
      assert.is((JSON.parse(saved) as { fold?: number }).fold, FOLD_VERSION, 'a snapshot of this fold replaced it')
      if (store.state) assert.ok(isDeepStrictEqual(await store.state('s1'), replay(await store.read('s1'))))
    })
  }

  return test
}
