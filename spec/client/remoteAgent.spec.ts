// remoteAgent against the real server: its state is the fold of the session's events
// (replay(remote.log) deep-equals GET /sessions/:id), it reconnects after dropped connections from
// its last seq without gaps or duplicates, and it drives replies, stops and approvals over HTTP.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { z } from 'zod'
import { AbortError, AgentError, DEFAULT_INTERRUPT_TEXT, callTool, defineTool, isOutputEvent, remoteAgent, replay, say, scriptedModel, type AgentEvent, type AgentState, type OutputEvent } from '../../lib/index.js'
import { newSession, startServer, type AgentFactory } from '../server/helpers.js'
import { flakyFetch, serverState } from './helpers.js'

const test = suite('client/remoteAgent')

const chatty = (chunkDelayMs = 0): AgentFactory => () => ({
  name: 'Friday', model: scriptedModel([[...say('Hello there, how are you today?', 8)], [...say('Fine, thanks.', 3)]], { chunkDelayMs, onExhausted: 'repeat-last' }),
})
test('reply() over HTTP; the remote state is the fold of its log and equals the server\'s state', async () => {
  const server = await startServer(chatty())
  const id = await newSession(server.url)
  const remote = remoteAgent({ url: server.url, session: id })
  try {
    const states: AgentState[] = []
    remote.state$.subscribe((s) => states.push(s))
    const msg = await remote.reply('hi')
    assert.is(msg.content.find((b) => b.type === 'text')?.type, 'text')
    assert.is((msg.content.find((b) => b.type === 'text') as { text: string }).text, 'Hello there, how are you today?')
    await remote.reply('and you?')
    const synced = await remote.sync()
    assert.equal(replay(remote.log), synced)
    assert.equal(synced, await serverState(server.url, id))
    assert.is(states.at(-1), remote.state)
    assert.is(remote.log.length, synced.seq)
  } finally {
    remote.close()
    await server.close()
  }
})

test('it reconnects after dropped connections from its last seq: no gap, no duplicate', async () => {
  const server = await startServer(chatty(2))
  const id = await newSession(server.url)
  const remote = remoteAgent({ url: server.url, session: id, fetch: flakyFetch(4, 700) })
  const seen: AgentEvent[] = []
  remote.events$.subscribe((e) => seen.push(e))
  try {
    await remote.reply('hi')
    await remote.reply('again')
    const synced = await remote.sync()
    const truth = await serverState(server.url, id)
    assert.equal(synced, truth)
    assert.is(seen.length, truth.seq, 'every event once')
    assert.equal(seen.map((e) => e.metadata.seq), Array.from({ length: truth.seq }, (_, i) => i + 1))
  } finally {
    remote.close()
    await server.close()
  }
})

test('a reply stream cut by the network goes on from the followed log: every event once, and the reply is not stopped', async () => {
  const server = await startServer(chatty(5))
  const id = await newSession(server.url)
  const remote = remoteAgent({ url: server.url, session: id, fetch: flakyFetch(1, 900, '/replies') })
  try {
    const events: OutputEvent[] = []
    for await (const event of remote.replyStream('hi')) events.push(event)
    const truth = await remote.sync()
    const expected = remote.log.filter(isOutputEvent)
    assert.equal(events.map((e) => e.id), expected.map((e) => e.id))
    const end = events.at(-1)!
    assert.is(end.type === 'REPLY_END' && end.finished_reason, 'completed')
    assert.is(truth.context.at(-1)!.finished_reason, 'completed')
  } finally {
    remote.close()
    await server.close()
  }
})

test('a follower sees every event of a reply another client runs', async () => {
  const server = await startServer(chatty(1))
  const id = await newSession(server.url)
  const runner = remoteAgent({ url: server.url, session: id })
  const follower = remoteAgent({ url: server.url, session: id })
  try {
    await runner.reply('hi')
    const state = await follower.sync()
    assert.equal(state, await runner.sync())
    assert.equal(follower.log.map((e) => e.id), runner.log.map((e) => e.id))
  } finally {
    runner.close()
    follower.close()
    await server.close()
  }
})

test('the signal and leaving the loop early interrupt the reply; a paused reply refuses a message with REPLY_PAUSED; approve resumes it', async () => {
  const remove = defineTool({ name: 'remove', description: 'Removes', input: z.object({ path: z.string() }), permission: 'ask', execute: ({ path }) => `removed ${path}` })
  const server = await startServer(() => ({
    name: 'Friday', tools: [remove],
    model: scriptedModel([[...say('one two three four five six seven eight', 8)], [...say('nine ten eleven twelve', 4)], [...callTool('c-1', 'remove', { path: '/a' })], [...say('Removed.')]], { chunkDelayMs: 20 }),
  }))
  const id = await newSession(server.url)
  const remote = remoteAgent({ url: server.url, session: id })
  try {
    const controller = new AbortController()
    const events: OutputEvent[] = []
    for await (const event of remote.replyStream('count', { signal: controller.signal })) {
      events.push(event)
      if (event.type === 'TEXT_BLOCK_DELTA') controller.abort()
    }
    const end = events.at(-1)!
    assert.is(end.type === 'REPLY_END' && end.finished_reason, 'interrupted')

    for await (const event of remote.replyStream('more')) if (event.type === 'TEXT_BLOCK_DELTA') break
    const afterBreak = await remote.sync()
    assert.is(afterBreak.status, 'idle')
    assert.is(afterBreak.context.at(-1)!.finished_reason, 'interrupted')

    const paused = await remote.reply('remove /a')
    assert.is(remote.state.status, 'paused')
    assert.ok(paused.content.some((b) => b.type === 'tool_call' && b.state === 'asking'))
    try {
      await remote.reply('something else')
      assert.unreachable('refused')
    } catch (error) {
      assert.instance(error, AgentError)
      assert.is((error as AgentError).code, 'REPLY_PAUSED')
    }
    const resumed = await remote.approve('c-1')
    assert.is(resumed.text, 'Removed.')
    assert.is(remote.state.status, 'idle')
    const state = remote.state
    assert.ok(JSON.stringify(state.context.at(-2)).includes('removed /a') || JSON.stringify(state.context.at(-1)).includes('removed /a'))
    assert.equal(replay(remote.log), await serverState(server.url, id))
  } finally {
    remote.close()
    await server.close()
  }
})

test('reply() interrupted by its signal resolves to the interruptText message as a local agent does; rejectOnInterrupt rejects with AbortError', async () => {
  const server = await startServer(chatty(20))
  const id = await newSession(server.url)
  const interruptOn = (signal: AbortController, remote: ReturnType<typeof remoteAgent>) => {
    const sub = remote.events$.subscribe((e) => { if (e.type === 'TEXT_BLOCK_DELTA') { sub.unsubscribe(); signal.abort() } })
  }
  const byDefault = remoteAgent({ url: server.url, session: id })
  const custom = remoteAgent({ url: server.url, session: id, interruptText: 'Stopped, as you asked.' })
  try {
    const first = new AbortController()
    interruptOn(first, byDefault)
    const msg = await byDefault.reply('hi', { signal: first.signal })
    assert.is(msg.finished_reason, 'interrupted')
    assert.equal(msg.content.map((b) => b.type === 'text' && b.text), [DEFAULT_INTERRUPT_TEXT])
    assert.is(msg.name, 'Friday')
    assert.is(msg.id, (await byDefault.sync()).context.at(-1)!.id)

    const second = new AbortController()
    interruptOn(second, custom)
    const own = await custom.reply('again', { signal: second.signal })
    assert.equal(own.content.map((b) => b.type === 'text' && b.text), ['Stopped, as you asked.'])

    const third = new AbortController()
    interruptOn(third, custom)
    try {
      await custom.reply('once more', { signal: third.signal, rejectOnInterrupt: true })
      assert.unreachable('rejected')
    } catch (error) {
      assert.instance(error, AbortError)
      assert.is((error as AbortError).reply_id, (await custom.sync()).context.at(-1)!.id)
    }
    assert.is((await custom.reply('finish')).finished_reason, 'completed')
    assert.throws(() => remoteAgent({ url: server.url, session: id, interruptText: 3 as unknown as string }), (e: unknown) => e instanceof AgentError && e.code === 'INVALID_OPTION')
  } finally {
    byDefault.close()
    custom.close()
    await server.close()
  }
})

test.run()
