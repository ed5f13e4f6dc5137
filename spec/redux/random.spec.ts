// Random conversations (sends that stream, ask for approval or are stopped mid-stream; approvals,
// denials and stops of a parked reply) driven through a Redux Toolkit store with the agents
// middleware over a hub and over a remoteAgent to a real server: after every step the slice holds
// exactly replay(log) of the session's stored log, and so does a store that followed it late (its
// first action one snapshot, never the log event by event); dispatching every recorded action
// again appends nothing.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createHub, createServer, memoryStore, replay, type AgentEvent, type AgentState, type Hub } from '../../lib/index.js'
import { listen } from '../../lib/node.js'
import { remoteAgent } from '../../lib/client/remoteAgent.js'
import { agentActions, type SourceOptions } from '../../lib/redux.js'
import { agentOptions, makeStore, random, session, until } from './helpers.js'

const test = suite('redux/random')

interface World {
  hub: Hub
  sources: SourceOptions
  close(): Promise<void>
}

const hubWorld = async (): Promise<World> => {
  const hub = createHub({ store: memoryStore(), agent: () => agentOptions() })
  return { hub, sources: { hub }, close: () => hub.close() }
}

const remoteWorld = async (): Promise<World> => {
  const hub = createHub({ store: memoryStore(), agent: () => agentOptions() })
  const listening = await listen(createServer({ hub }), { port: 0 })
  return {
    hub,
    sources: { remote: { url: listening.url } },
    async close() {
      await listening.close()
      await hub.close()
    },
  }
}

type Store = ReturnType<typeof makeStore>['store']

/** Waits until the slice's session has folded every event of its stored log and no reply runs. */
const settled = async (world: World, store: Store, id: string, after: number) => {
  await until(store, (s) => (session(s, id)?.seq ?? -1) > after && session(s, id)!.status !== 'running')
  for (;;) {
    const log = await world.hub.session(id).state()
    if (log.seq === session(store.getState(), id)!.seq && log.status !== 'running') return
    await until(store, (s) => session(s, id)!.seq >= log.seq)
  }
}

/** The session's stored log, as any follower reads it. */
const storedEvents = async (world: World, id: string) => {
  const events: AgentEvent[] = []
  const subscription = world.hub.session(id).follow().subscribe((e) => events.push(e))
  const seq = (await world.hub.session(id).state()).seq
  while (events.length < seq) await new Promise((resolve) => setTimeout(resolve, 1))
  subscription.unsubscribe()
  return events.slice(0, seq)
}

const conversation = async (world: World, seed: number) => {
  const next = random(seed)
  const id = `s${seed}`
  await world.hub.create({ session_id: id })
  const { store, seen } = makeStore(world.sources)
  store.dispatch(agentActions.follow({ session_id: id }))
  await until(store, (s) => session(s, id) !== undefined)
  let late: ReturnType<typeof makeStore> | null = null
  const steps: string[] = []
  for (let step = 0; step < 8; step++) {
    const state = session(store.getState(), id) as AgentState
    const before = state.seq
    const roll = next()
    if (state.status === 'paused') {
      const call = state.waiting_for[0]
      if (roll < 0.4) store.dispatch(agentActions.approve({ session_id: id, call: call.id }))
      else if (roll < 0.7) store.dispatch(agentActions.deny({ session_id: id, call: call.id, reason: 'no' }))
      else store.dispatch(agentActions.stop({ session_id: id }))
      steps.push(roll < 0.4 ? 'approve' : roll < 0.7 ? 'deny' : 'stop parked')
    } else if (roll < 0.35) {
      store.dispatch(agentActions.send({ session_id: id, input: `please ask ${step}` }))
      steps.push('ask')
    } else if (roll < 0.65) {
      store.dispatch(agentActions.send({ session_id: id, input: `slow ${'word '.repeat(30)}` }))
      await until(store, (s) => (session(s, id)!.reply_msg?.content.some((b) => b.type === 'text' && b.text.length > 0) ?? false))
      store.dispatch(agentActions.stop({ session_id: id }))
      steps.push('stop mid-stream')
    } else {
      store.dispatch(agentActions.send({ session_id: id, input: `say one two three ${step}` }))
      steps.push('say')
    }
    await settled(world, store, id, before)
    const expected = replay(await storedEvents(world, id))
    assert.equal(session(store.getState(), id), expected, `seed ${seed}, after ${steps.join(', ')}`)
    if (step === 3) {
      late = makeStore(world.sources)
      late.store.dispatch(agentActions.follow({ session_id: id }))
    }
    if (late) {
      await until(late.store, (s) => session(s, id)?.seq === expected.seq)
      assert.equal(session(late.store.getState(), id), expected, `late follower, seed ${seed}, after ${steps.join(', ')}`)
    }
  }
  assert.ok(seen.some((a) => a.type === 'agentlog/event/TEXT_BLOCK_DELTA'))
  assert.not.ok(seen.some((a) => a.error), JSON.stringify(seen.filter((a) => a.error)))
  const lateTypes = late!.seen.map((a) => a.type)
  assert.is(lateTypes[1], 'agentlog/followed')
  assert.ok((late!.seen[1].payload as { state: AgentState }).state.seq > 0)
  assert.is(lateTypes.filter((t) => t === 'agentlog/followed').length, 1)
  // DevTools safety: every recorded action dispatched again calls no model and appends nothing.
  const length = (await world.hub.session(id).state()).seq
  const slice = store.getState().agents
  for (const action of seen.slice()) store.dispatch(action as never)
  await new Promise((resolve) => setTimeout(resolve, 50))
  assert.is((await world.hub.session(id).state()).seq, length)
  assert.is(store.getState().agents, slice)
  store.dispatch(agentActions.unfollow({ session_id: id }))
  late!.store.dispatch(agentActions.unfollow({ session_id: id }))
  return steps
}

for (const [name, make] of [['a hub', hubWorld], ['a remoteAgent', remoteWorld]] as const) {
  test(`through ${name}: after each random step the slice deep-equals replay(log), a late follower's too`, async () => {
    const world = await make()
    const kinds = new Set<string>()
    try {
      for (const seed of [1, 2, 3, 4]) for (const step of await conversation(world, seed)) kinds.add(step)
    } finally {
      await world.close()
    }
    for (const kind of ['ask', 'approve', 'deny', 'stop mid-stream', 'say']) assert.ok(kinds.has(kind), `no "${kind}" step in the runs: ${[...kinds]}`)
  })
}

test('through a remoteAgent: the server\'s refusals are error actions with its codes; an unfollow during a reply is no refusal', async () => {
  const world = await remoteWorld()
  try {
    await world.hub.create({ session_id: 'r' })
    const { store, seen } = makeStore(world.sources)
    store.dispatch(agentActions.follow({ session_id: 'r' }))
    await until(store, (s) => session(s, 'r') !== undefined)
    store.dispatch(agentActions.send({ session_id: 'r', input: 'please ask' }))
    await until(store, (s) => session(s, 'r')?.status === 'paused')
    store.dispatch(agentActions.send({ session_id: 'r', input: 'more' }))
    store.dispatch(agentActions.approve({ session_id: 'r', call: 'no-such-call' }))
    await until(store, () => seen.filter((a) => a.error).length === 2)
    const codes = seen.filter((a) => a.error).map((a) => [(a.meta as { command: string }).command, (a.payload as { code: string }).code]).sort()
    assert.equal(codes, [['agentlog/approve', 'UNKNOWN_CALL'], ['agentlog/send', 'REPLY_PAUSED']])
    store.dispatch(agentActions.stop({ session_id: 'r' }))
    await until(store, (s) => session(s, 'r')?.status === 'idle')
    store.dispatch(agentActions.send({ session_id: 'r', input: `slow ${'word '.repeat(20)}` }))
    await until(store, (s) => session(s, 'r')?.status === 'running')
    store.dispatch(agentActions.unfollow({ session_id: 'r' }))
    await new Promise((resolve) => setTimeout(resolve, 300))
    assert.is(seen.filter((a) => a.error).length, 2, JSON.stringify(seen.filter((a) => a.error).slice(2)))
    assert.is(session(store.getState(), 'r'), undefined)
  } finally {
    await world.close()
  }
})

test('a remoteAgent given in agents is followed from the start and folds into the slice as the server\'s log', async () => {
  const world = await remoteWorld()
  try {
    await world.hub.create({ session_id: 'm' })
    const url = (world.sources as { remote: { url: string } }).remote.url
    await world.hub.session('m').reply('before the store')
    const remote = remoteAgent({ url, session: 'm' })
    const { store, seen } = makeStore({ agents: { m: remote } })
    await until(store, (s) => (session(s, 'm')?.seq ?? 0) > 0)
    assert.is(seen[0].type, 'agentlog/followed')
    store.dispatch(agentActions.send({ session_id: 'm', input: 'please ask' }))
    await until(store, (s) => session(s, 'm')?.status === 'paused')
    store.dispatch(agentActions.deny({ session_id: 'm', call: session(store.getState(), 'm')!.waiting_for[0] }))
    await settled(world, store, 'm', session(store.getState(), 'm')!.seq)
    assert.equal(session(store.getState(), 'm'), replay(await storedEvents(world, 'm')))
    assert.not.ok(seen.some((a) => a.error))
    remote.close()
  } finally {
    await world.close()
  }
})

test.run()
