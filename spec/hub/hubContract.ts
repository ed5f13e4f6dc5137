// The hub's behaviour on any store, within one process: sessions opened on demand, commands that
// resolve with the events they caused once committed, interrupts that resolve after REPLY_END,
// pauses answered by approve / deny / submitResult, eviction by maxLive and idleMs (a paused
// session then holds no lease and is reopened on use), follow, close. Postgres runs it too.
import { isDeepStrictEqual } from 'node:util'
import { firstValueFrom, filter, take, toArray } from 'rxjs'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { AgentError, createHub, replay, type AgentEvent, type Hub, type HubOptions, type OutputEvent, type SessionStore } from '../../lib/index.js'
import { sleep } from '../../lib/core/abort.js'
import { checkLog } from '../../lib/core/logCheck.js'
import { sessionAgent } from '../helpers/sessionModel.js'
import { rejectsWithCode as code } from '../helpers/expect.js'

const types = (events: readonly AgentEvent[]) => events.map((e) => e.type)
const collect = async (stream: AsyncIterable<OutputEvent>) => {
  const out: OutputEvent[] = []
  for await (const e of stream) out.push(e)
  return out
}

export interface HubContractOptions {
  /** Whether a session that is not open holds a lease: a second store on the same place can open it. */
  reopen?: (store: SessionStore, session_id: string) => Promise<void>
  /** How many rows, files or entries of the session the store still holds anywhere (after a delete: 0). */
  remains?: (store: SessionStore, session_id: string) => Promise<number>
}

export const hubContract = (name: string, make: () => Promise<SessionStore>, extra: HubContractOptions = {}) => {
  const test = suite(`hub/${name}`)
  let hub: Hub
  let store: SessionStore
  const start = async (options: Partial<HubOptions> = {}) => {
    store = await make()
    hub = createHub({ store, agent: sessionAgent(2), ...options })
    return hub
  }
  const openAndClose = extra.reopen ?? (async (s: SessionStore, id: string) => (await s.open(id)).close())
  /** The hub released the session (its close runs in the background): another writer can open it. */
  const reopen = async (s: SessionStore, id: string) => {
    for (let attempt = 0; ; attempt++) {
      try {
        return await openAndClose(s, id)
      } catch (error) {
        if ((error as AgentError).code !== 'SESSION_BUSY' || attempt === 50) throw error
        await sleep(20)
      }
    }
  }
  test.after.each(async () => {
    await hub?.close()
  })

  test('a session is opened on demand: reply, state, list, and the log replays to the state', async () => {
    await start()
    await hub.create({ session_id: 's1', metadata: { user: 'ann' } })
    const s = hub.session('s1')
    const msg = await s.reply('hello')
    assert.is(msg.content.map((b) => (b as { text?: string }).text).join(''), 'ok: hello')
    const state = await s.state()
    assert.is(state.status, 'idle')
    assert.is(state.context.length, 2)
    const [info] = (await hub.list()).items
    assert.equal([info.session_id, info.status, info.last_seq, info.metadata], ['s1', 'idle', state.seq, { user: 'ann' }])
    assert.ok(isDeepStrictEqual(replay(await store.read('s1')), state))
  })

  test('dispatch resolves with the events it caused; a refused input changes nothing', async () => {
    await start()
    await hub.create({ session_id: 's1' })
    const s = hub.session('s1')
    const caused = await s.dispatch('ask /tmp/a')
    assert.equal(types(caused).slice(0, 2), ['USER_MESSAGE', 'REPLY_START'])
    await firstValueFrom(s.follow().pipe(filter((e) => e.type === 'REQUIRE_USER_CONFIRM')))
    const before = (await s.state()).seq
    await code(s.dispatch('another message'), 'REPLY_PAUSED')
    await code(s.dispatch({ nonsense: true } as never), 'INVALID_INPUT')
    await code(s.approve('no-such-call'), 'UNKNOWN_CALL')
    assert.is((await s.state()).seq, before, 'nothing was appended')
  })

  test('approve, deny and submitResult answer a paused reply, which then completes', async () => {
    await start()
    await hub.create({ session_id: 's1' })
    const s = hub.session('s1')
    const asked = await collect(s.replyStream('ask /tmp/a'))
    assert.is(asked.at(-1)!.type, 'REQUIRE_USER_CONFIRM')
    const call = (await s.state()).waiting_for[0]
    const approved = await s.dispatch({ approve: call.id })
    assert.is(approved[0].type, 'USER_CONFIRM_RESULT')
    await firstValueFrom(s.follow().pipe(filter((e) => e.type === 'REPLY_END')))
    let state = await s.state()
    assert.is(state.status, 'idle')
    assert.ok(JSON.stringify(state.context.at(-1)).includes('deleted /tmp/a'))

    await collect(s.replyStream('ask /tmp/b'))
    await s.deny((await s.state()).waiting_for[0].id, 'not that one')
    await firstValueFrom(s.follow({ fromSeq: state.seq }).pipe(filter((e) => e.type === 'REPLY_END')))
    state = await s.state()
    assert.ok(JSON.stringify(state.context.at(-1)).includes('denied'))

    const ext = await collect(s.replyStream('ext weather'))
    assert.is(ext.at(-1)!.type, 'REQUIRE_EXTERNAL_EXECUTION')
    await s.submitResult((await s.state()).waiting_for[0].id, { sky: 'clear' })
    await firstValueFrom(s.follow({ fromSeq: state.seq }).pipe(filter((e) => e.type === 'REPLY_END')))
    state = await s.state()
    assert.ok(JSON.stringify(state.context.at(-1)).includes('clear'))
    assert.equal(checkLog(await store.read('s1')).violations, [])
  })

  test('interrupt() through another handle ends a running reply; it resolves once REPLY_END is in the log', async () => {
    await start()
    await hub.create({ session_id: 's1' })
    const events: OutputEvent[] = []
    const streaming = (async () => {
      for await (const e of hub.session('s1').replyStream('slow 5000')) events.push(e)
    })()
    await firstValueFrom(hub.session('s1').follow().pipe(filter((e) => e.type === 'TOOL_RESULT_START')))
    await hub.session('s1').interrupt()
    const log = await store.read('s1')
    const end = log.at(-1)!
    assert.is(end.type === 'REPLY_END' && end.finished_reason, 'interrupted')
    await streaming
    assert.is(events.at(-1)!.type, 'REPLY_END')
    assert.is((await hub.session('s1').state()).status, 'idle')
  })

  test('a paused session is closed when idle, releasing its lease, and reopened when answered', async () => {
    await start({ idleMs: 20 })
    await hub.create({ session_id: 's1' })
    const s = hub.session('s1')
    await collect(s.replyStream('ask /tmp/a'))
    await sleep(80)
    await reopen(store, 's1')
    const call = (await s.state()).waiting_for[0]
    await s.approve(call.id)
    await firstValueFrom(s.follow().pipe(filter((e) => e.type === 'REPLY_END')))
    assert.is((await s.state()).status, 'idle')
  })

  test('at most maxLive sessions are held; the least recently used go first, running ones stay', async () => {
    await start({ maxLive: 2 })
    const running = hub.session('run')
    await hub.create({ session_id: 'run' })
    const streaming = collect(running.replyStream('stream 60'))
    for (const id of ['a', 'b', 'c', 'd']) {
      await hub.create({ session_id: id })
      await hub.session(id).reply(`hi ${id}`)
    }
    await sleep(5)
    await reopen(store, 'a')
    const ended = await streaming
    assert.is(ended.at(-1)!.type, 'REPLY_END', 'the running reply was never evicted')
    assert.is((ended.at(-1) as { finished_reason: string }).finished_reason, 'completed')
    for (const id of ['a', 'b', 'c', 'd']) assert.is((await hub.session(id).state()).context.length, 2)
  })

  test('a session opened while maxLive sessions are busy is used by the caller that opened it, not evicted first', async () => {
    await start({ maxLive: 1 })
    await hub.create({ session_id: 'busy' })
    await hub.create({ session_id: 'new' })
    const busy = collect(hub.session('busy').replyStream('stream 40'))
    await sleep(20)
    // The only slot is taken by a running reply: opening 'new' goes past maxLive, and trimming must
    // not close the session just opened before its caller uses it (that reply failed with CLOSED).
    const msg = await hub.session('new').reply('hello')
    assert.is(msg.content.map((b) => (b as { text?: string }).text).join(''), 'ok: hello')
    assert.is((await busy).at(-1)!.type, 'REPLY_END')
  })

  test('follow delivers every event of the session in order from fromSeq', async () => {
    await start()
    await hub.create({ session_id: 's1' })
    const s = hub.session('s1')
    await s.reply('one')
    const seen = firstValueFrom(s.follow({ fromSeq: 2 }).pipe(filter((e) => e.type === 'REPLY_END'), take(2), toArray()))
    await s.reply('stream 5')
    const all = await store.read('s1')
    const ends = await seen
    assert.equal(ends.map((e) => e.metadata.seq), all.filter((e) => e.type === 'REPLY_END').map((e) => e.metadata.seq))
  })

  test('bad input: an invalid id, an unknown session, a throwing agent factory; the hub stays usable', async () => {
    let fail = true
    await start({ agent: () => {
      if (fail) throw new Error('no model configured')
      return sessionAgent(2)()
    } })
    assert.throws(() => hub.session('../x'), (e: AgentError) => e.code === 'INVALID_SESSION_ID')
    await code(hub.session('ghost').reply('hi'), 'NOT_FOUND')
    await hub.create({ session_id: 's1' })
    try {
      await hub.session('s1').reply('hi')
      assert.unreachable('the factory threw')
    } catch (error) {
      assert.is((error as Error).message, 'no model configured')
    }
    fail = false
    assert.ok(await hub.session('s1').reply('hi'), 'the session opens once the factory works')
  })

  test('delete closes a live session first; close releases everything and refuses later calls', async () => {
    await start()
    await hub.create({ session_id: 's1' })
    await hub.session('s1').reply('hi')
    await hub.delete('s1')
    await code(hub.session('s1').state(), 'NOT_FOUND')
    await hub.create({ session_id: 's2' })
    await hub.session('s2').reply('hi')
    await hub.close()
    await code(hub.session('s2').reply('again'), 'CLOSED')
  })

  test('delete racing a reply on the same session: the reply ends or never starts, nothing of the session remains, a new one of that id starts empty', async () => {
    await start()
    const settle = (p: Promise<unknown>) => p.then(() => null, (error: AgentError) => error.code ?? String(error))
    for (let round = 0; round < 20; round++) {
      const id = `race-${round}`
      await hub.create({ session_id: id })
      await hub.session(id).reply('before')
      // Either call first, at once or a moment later.
      const reply = () => settle(hub.session(id).reply(round % 2 ? 'stream 20' : 'slow 2000'))
      const deleteFirst = round % 2 === 0
      const first = deleteFirst ? settle(hub.delete(id)) : reply()
      if (round % 4 >= 2) await sleep(round % 3)
      const second = deleteFirst ? reply() : settle(hub.delete(id))
      const [deleted, replied] = deleteFirst ? [await first, await second] : [await second, await first]
      assert.ok(replied === null || ['NOT_FOUND', 'CLOSED'].includes(replied), `the reply ended or was refused: ${replied}`)
      if (deleted !== null) {
        assert.is(deleted, 'SESSION_BUSY', `a delete that fails says so: ${deleted}`)
        continue
      }
      await code(hub.session(id).state(), 'NOT_FOUND')
      await sleep(10)
      if (extra.remains) assert.is(await extra.remains(store, id), 0, 'nothing of the deleted session remains')
      await hub.create({ session_id: id })
      await hub.session(id).reply('after')
      const events = await store.read(id)
      assert.ok(!JSON.stringify(events).includes('before'), 'the new session holds nothing of the deleted one')
      assert.is(events[0].type, 'USER_MESSAGE')
      assert.equal(checkLog(events).violations, [])
    }
  })

  return test
}
