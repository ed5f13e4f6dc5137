// Replies whose owner died are closed by a live process, with no client sending anything: a hub
// sweeps for running sessions whose lease is free (every second by default) and closes each cut
// reply as interrupted. Then the chaos run: two hub processes with replies running, one SIGKILLed
// at a random moment, again and again; each cut reply is closed, the survivor's followers see
// every REPLY_END, nothing acknowledged is lost, and every log passes strict replay.
import { firstValueFrom, filter, timeout } from 'rxjs'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createHub, replay, type AgentEvent } from '../../lib/index.js'
import { checkLog } from '../../lib/core/logCheck.js'
import { DEFAULT_SWEEP_MS } from '../../lib/hub/sweeper.js'
import { sleep } from '../../lib/core/abort.js'
import { sessionAgent } from '../helpers/sessionModel.js'
import { withChildren, type HubChild, type Line } from './helpers/children.js'
import { postgresAvailable } from './helpers/db.js'

const test = suite('postgres/sweep')
const pg = withChildren(test)
const child = () => pg.child()
const kill = (c: HubChild) => pg.kill(c)
/** Far above the documented bound (a sweep interval plus an open), so only a reply never closed fails it. */
const PATIENCE_MS = 30 * DEFAULT_SWEEP_MS

/** Waits until the session is no longer running (polling the table, as a reader elsewhere would). */
const settled = async (session_id: string) => {
  for (const started = Date.now(); (await pg.store.info(session_id)).status === 'running';) {
    if (Date.now() - started > PATIENCE_MS) assert.unreachable(`session ${session_id} still runs ${PATIENCE_MS} ms after its owner died`)
    await sleep(25)
  }
}

/** A line the child printed already, or prints within PATIENCE_MS. */
const printed = (c: HubChild, match: (l: Line) => boolean, what: string) => {
  const line = c.lines.find(match)
  if (line) return Promise.resolve(line)
  return Promise.race([c.waitFor(match), sleep(PATIENCE_MS).then(() => assert.unreachable(`${what}: not within ${PATIENCE_MS} ms`))])
}

const strictReplay = (events: AgentEvent[]) => {
  assert.equal(checkLog(events).violations, [])
  replay(events, undefined, { strict: true })
}

test('the owner SIGKILLed mid-reply: a live hub closes the reply (interrupted, every call answered) with no command; followers, state() and list() see it', async () => {
  await pg.store.create({ session_id: 's1' })
  const hub = createHub({ store: pg.store, agent: sessionAgent(1) })
  try {
    const owner = await child()
    const reply = owner.request('reply', 's1', { input: 'slow 60000' })
    await owner.waitFor((l) => l.id === reply.id && l.event === 'TOOL_RESULT_START')
    while (!(await pg.store.read('s1')).some((e) => e.type === 'TOOL_RESULT_START')) await sleep(10)
    const end = firstValueFrom(hub.session('s1').follow().pipe(filter((e) => e.type === 'REPLY_END'), timeout({ first: PATIENCE_MS })))
    await kill(owner)
    const seen = await end
    assert.is(seen.type === 'REPLY_END' && seen.finished_reason, 'interrupted')
    const state = await hub.session('s1').state()
    assert.is(state.status, 'idle')
    assert.equal(state.context.at(-1)!.content.map((b) => b.type), ['tool_call', 'tool_result'], 'the cut tool call has its result')
    assert.is((await hub.list()).items[0].status, 'idle')
    strictReplay(await pg.store.read('s1'))
  } finally {
    await hub.close()
  }
})

test('chaos: two hub processes, replies running, one SIGKILLed at a random moment 5 times: cut replies are closed, the survivor follows every REPLY_END, nothing acknowledged is lost', async () => {
  const sessions = ['c0', 'c1', 'c2', 'c3']
  for (const id of sessions) await pg.store.create({ session_id: id })
  interface Owner { c: HubChild; mine: string[]; loops: Map<number, string> }
  const start = async (mine: string[]): Promise<Owner> => {
    const c = await child()
    for (const id of sessions) await c.request('follow', id).answer
    const loops = new Map(mine.map((id) => [c.request('loop', id, { input: 'stream 8' }).id, id]))
    return { c, mine, loops }
  }
  /** `SESSION:SEQ` of every REPLY_END an owner acknowledged -> its reply id. */
  const acked = new Map<string, string>()
  const record = (owner: Owner) => {
    for (const l of owner.c.lines) if (l.acked !== undefined) acked.set(`${owner.loops.get(l.id!)}:${l.acked}`, l.reply_id!)
  }
  let owners = await Promise.all([start(sessions.slice(0, 2)), start(sessions.slice(2))])
  for (let round = 0; round < 5; round++) {
    const victim = owners[Math.floor(Math.random() * 2)]
    const survivor = owners.find((o) => o !== victim)!
    await printed(victim.c, (l) => l.acked !== undefined, 'a reply acknowledged')
    await sleep(Math.random() * 150)
    await kill(victim.c)
    record(victim)
    // The survivor's sweep closes the victim's cut replies; its followers see every REPLY_END.
    for (const id of victim.mine) {
      await settled(id)
      const ends = (await pg.store.read(id)).filter((e) => e.type === 'REPLY_END').map((e) => e.metadata.seq)
      await printed(survivor.c, (l) => l.session === id && l.followed === ends.at(-1), `the survivor follows ${id} to its last REPLY_END`)
      const followed = survivor.c.lines.filter((l) => l.session === id && l.followed !== undefined).map((l) => l.followed)
      assert.equal(followed, ends, `the survivor's follower of ${id} saw every REPLY_END`)
    }
    owners = [survivor, await start(victim.mine)]
  }
  // The last two owners die too; a new hub here sweeps up after them.
  for (const owner of owners) {
    await kill(owner.c)
    record(owner)
  }
  const hub = createHub({ store: pg.store, agent: sessionAgent(1) })
  try {
    for (const id of sessions) await settled(id)
    for (const [key, reply_id] of acked) {
      const [id, seq] = key.split(':')
      const event = (await pg.store.read(id))[Number(seq) - 1]
      assert.ok(event?.type === 'REPLY_END' && event.reply_id === reply_id, `acknowledged REPLY_END ${key} is stored`)
    }
    for (const id of sessions) strictReplay(await pg.store.read(id))
    assert.ok(acked.size >= 5, 'replies were acknowledged along the way')
  } finally {
    await hub.close()
  }
})

if (postgresAvailable('spec/postgres/sweep.spec.ts')) test.run()
