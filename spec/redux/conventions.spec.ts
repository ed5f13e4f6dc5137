// The actions follow the Redux ecosystem's conventions: Flux Standard Actions whose types start
// with `agentlog/`, plain JSON that passes Redux Toolkit's default serializability and
// immutability checks with no option (they report on console.error); the slice's settled parts
// are frozen; steer and queue reach the source's own methods, or are refused as UNSUPPORTED.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createAgent, replay, type AgentInput } from '../../lib/index.js'
import { agentActions, isCommand, type AnyAction, type RefusedAction } from '../../lib/redux.js'
import { agentOptions, makeStore, session, until } from './helpers.js'

const test = suite('redux/conventions')

const FSA_KEYS = new Set(['type', 'payload', 'meta', 'error'])

const conversation = async () => {
  const agent = createAgent(agentOptions())
  const { store, seen } = makeStore({ agents: { alice: agent } })
  store.dispatch(agentActions.send({ session_id: 'alice', input: 'one two three' }))
  await until(store, (s) => session(s, 'alice')?.context.length === 2)
  store.dispatch(agentActions.send({ session_id: 'alice', input: 'please ask' }))
  await until(store, (s) => session(s, 'alice')?.status === 'paused')
  store.dispatch(agentActions.deny({ session_id: 'alice', call: session(store.getState(), 'alice')!.waiting_for[0].id, reason: 'no' }))
  await until(store, (s) => session(s, 'alice')?.status === 'idle')
  store.dispatch(agentActions.approve({ session_id: 'alice', call: 'nope' }))
  await until(store, () => seen.some((a) => a.error))
  return { agent, store, seen }
}

test('every action is a Flux Standard Action typed agentlog/..., and plain JSON', async () => {
  const { seen } = await conversation()
  assert.ok(seen.length > 20)
  for (const action of seen) {
    assert.ok(action.type.startsWith('agentlog/'), action.type)
    for (const key of Object.keys(action)) assert.ok(FSA_KEYS.has(key), `${action.type} has key ${key}`)
    assert.equal(JSON.parse(JSON.stringify(action)), structuredClone(action), `${action.type} is not plain JSON`)
  }
  const commands = seen.filter(isCommand)
  assert.ok(commands.length >= 4)
  for (const command of commands) assert.type((command.meta as { request_id?: unknown }).request_id, 'string')
})

test('configureStore with its default checks finds nothing (no non-serializable value, no mutation); the settled state is frozen', async () => {
  const errors: unknown[][] = []
  const original = console.error
  const warn = console.warn
  console.error = (...args: unknown[]) => void errors.push(args)
  console.warn = (...args: unknown[]) => void errors.push(args)
  try {
    const { agent, store } = await conversation()
    const alice = session(store.getState(), 'alice')!
    assert.equal(alice, replay(agent.log))
    assert.ok(Object.isFrozen(alice.context) && Object.isFrozen(alice.context[0]) && Object.isFrozen(alice.usage))
    assert.throws(() => (alice.context as unknown[]).push(1))
  } finally {
    console.error = original
    console.warn = warn
  }
  // The checks are on: a Date in an action is reported (so the silence above is a finding).
  const control: unknown[][] = []
  console.error = (...args: unknown[]) => void control.push(args)
  try {
    makeStore({ agents: {} }).store.dispatch({ type: 'app/dated', payload: new Date(0) })
  } finally {
    console.error = original
  }
  assert.ok(control.some((args) => /non-serializable/.test(String(args[0]))), JSON.stringify(control))
  // RTK also warns when a check took long (its 32 ms threshold: a loaded machine's timing, not a finding).
  const findings = errors.filter((args) => !/took \d+ms, which is more than the warning threshold/.test(String(args[0])))
  assert.equal(findings, [])
})

test('steer and queue call the source\'s steer() / queue() when it has them, else are refused with UNSUPPORTED', async () => {
  // A source without steer() / queue() (an Agent has them since issue 30: shadowed here).
  const plain = Object.assign(createAgent(agentOptions()), { steer: undefined, queue: undefined })
  const talking = Object.assign(createAgent(agentOptions()), {
    steered: [] as AgentInput[],
    queued: [] as AgentInput[],
    async steer(input: AgentInput) { this.steered.push(input) },
    async queue(input: AgentInput) { this.queued.push(input) },
  })
  const { store, seen } = makeStore({ agents: { plain, talking } })
  store.dispatch(agentActions.steer({ session_id: 'plain', input: 'left' }))
  store.dispatch(agentActions.queue({ session_id: 'plain', input: 'later' }))
  store.dispatch(agentActions.steer({ session_id: 'talking', input: 'left' }))
  store.dispatch(agentActions.queue({ session_id: 'talking', input: 'later' }))
  await until(store, () => seen.filter((a) => a.error).length === 2)
  await new Promise((resolve) => setTimeout(resolve, 10))
  assert.equal((seen.filter((a) => a.error) as RefusedAction[]).map((a) => [a.meta.command, a.meta.session_id, a.payload.code]), [
    ['agentlog/steer', 'plain', 'UNSUPPORTED'],
    ['agentlog/queue', 'plain', 'UNSUPPORTED'],
  ])
  assert.equal(talking.steered, ['left'])
  assert.equal(talking.queued, ['later'])
})

test('a second follow is harmless: one snapshot, the events once', async () => {
  const agent = createAgent(agentOptions())
  const { store, seen } = makeStore({ agents: { alice: agent } })
  store.dispatch(agentActions.follow({ session_id: 'alice' }))
  store.dispatch(agentActions.follow({ session_id: 'alice' }))
  await agent.reply('a b')
  await until(store, (s) => session(s, 'alice')?.seq === agent.log.length)
  assert.is(seen.filter((a: AnyAction) => a.type === 'agentlog/followed').length, 1)
  assert.is(seen.filter((a: AnyAction) => a.type === 'agentlog/event/REPLY_END').length, 1)
  assert.equal(session(store.getState(), 'alice'), agent.state)
})

test.run()
