// The remote client against a server or network that misbehaves (issue 19): every event received is
// checked before it is folded or yielded (a bad one ends that stream with INVALID_EVENT and the log
// is read again from the last good seq); a never-ending line ends the stream with TOO_LARGE; a
// pending call settles after close() (CLOSED) or once the session is deleted (NOT_FOUND); aborting a
// reply ends the iteration once the server has interrupted it, even if the server keeps the stream open.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { AgentError, DEFAULT_INTERRUPT_TEXT, remoteAgent, replay, type OutputEvent } from '../../lib/index.js'
import { DEFAULT_MAX_LINE_BYTES, readSse } from '../../lib/client/sse.js'
import { ev } from '../helpers/events.js'
import { rejectsWithCode } from '../helpers/expect.js'
import { within } from '../helpers/hardening.js'
import { sessionAgent } from '../helpers/sessionModel.js'
import { eventsUpTo, newSession, startServer } from '../server/helpers.js'
import { frame, gatedFetch, holdFrom, rewriting, serverState, sseThenOpen } from './helpers.js'

const test = suite('client/hardening')
const LONG = 15_000

test('a bad event on /events is never folded: the stream ends and the log is read again from the last good seq', async () => {
  const server = await startServer(sessionAgent())
  const id = await newSession(server.url)
  await server.hub.session(id).reply('hello')
  const truth = await eventsUpTo(server.url, id, 2)
  const second = JSON.parse(JSON.stringify(truth[1].event)) as { metadata: Record<string, unknown> }
  const bad = {
    null: 'null',
    'an unknown type': JSON.stringify({ type: 'NOPE', metadata: { seq: 2 } }),
    'a wrong seq': JSON.stringify({ ...second, metadata: { ...second.metadata, seq: 7 } }),
    'not JSON': '{"type":',
  }
  try {
    for (const [what, data] of Object.entries(bad)) {
      const asked: string[] = []
      let served = false
      const remote = remoteAgent({
        url: server.url, session: id,
        fetch: async (input, init) => {
          if (!String(input).includes('/events')) return fetch(input, init)
          asked.push(String(input))
          if (served) return fetch(input, init)
          served = true
          return sseThenOpen([frame(1, JSON.stringify(truth[0].event)), frame(2, data)])
        },
      })
      try {
        const state = await within(remote.sync(), LONG, `sync after ${what}`)
        assert.equal(state, await serverState(server.url, id), what)
        assert.equal(replay(remote.log), state, what)
        assert.ok(remote.log.every((event, i) => event?.metadata.seq === i + 1), `${what}: every event in place`)
        assert.ok(asked.length >= 2 && asked[1].endsWith('from_seq=1'), `${what}: read again from seq 1: ${asked.join(', ')}`)
      } finally {
        remote.close()
      }
    }
  } finally {
    await server.close()
  }
})

test('a server that sends a bad event at the same place again and again: pending calls reject with INVALID_EVENT instead of waiting for good', async () => {
  const server = await startServer(sessionAgent())
  const id = await newSession(server.url)
  await server.hub.session(id).reply('hello')
  let reads = 0
  const remote = remoteAgent({
    url: server.url, session: id,
    fetch: async (input, init) => {
      if (!String(input).includes('/events')) return fetch(input, init)
      reads += 1
      return sseThenOpen([frame(1, 'null')])
    },
  })
  const seen: unknown[] = []
  const failed = new Promise<unknown>((resolve) => remote.events$.subscribe({ next: (e) => seen.push(e), error: resolve }))
  try {
    await within(rejectsWithCode(remote.sync(), 'INVALID_EVENT'), LONG, 'sync()')
    assert.instance(await failed, AgentError)
    assert.equal(seen, [])
    assert.equal(remote.log, [])
    assert.ok(reads >= 2, `read again before giving up (${reads} reads)`)
    await rejectsWithCode(remote.reply('hi'), 'INVALID_EVENT')
  } finally {
    remote.close()
    await server.close()
  }
})

test('a bad event in a reply stream ends it with INVALID_EVENT: a malformed one, or one whose seq goes back; nothing bad is yielded or folded', async () => {
  const server = await startServer(sessionAgent())
  const id = await newSession(server.url)
  const start = ev('REPLY_START', { reply_id: 'r-1', session_id: id, name: 'Friday', role: 'assistant', metadata: { seq: 2 } })
  const block = ev('TEXT_BLOCK_START', { reply_id: 'r-1', block_id: 'b-1', metadata: { seq: 1 } })
  const streams = {
    malformed: { frames: [frame(undefined, JSON.stringify({ type: 'TEXT_BLOCK_DELTA', delta: 'x' }))], good: 0 },
    'going back': { frames: [frame(undefined, JSON.stringify(start)), frame(undefined, JSON.stringify(block))], good: 1 },
  }
  try {
    for (const [what, { frames, good }] of Object.entries(streams)) {
      const remote = remoteAgent({ url: server.url, session: id, fetch: async (input, init) => (String(input).includes('/replies') ? sseThenOpen(frames) : fetch(input, init)) })
      try {
        const yielded: OutputEvent[] = []
        await within(rejectsWithCode(async () => {
          for await (const event of remote.replyStream('hi')) yielded.push(event)
        }, 'INVALID_EVENT'), LONG, `the reply stream (${what})`)
        assert.is(yielded.length, good, what)
        assert.equal(remote.log, [], what)
      } finally {
        remote.close()
      }
    }
  } finally {
    await server.close()
  }
})

/** A response whose body is one `data:` line that never ends (64 KiB a chunk, up to `cap` bytes); `pulled()` says how much was read. */
const endlessLine = (cap = 48 * 1024 * 1024) => {
  let pulled = 0
  const chunk = new TextEncoder().encode('x'.repeat(64 * 1024))
  const response = new Response(new ReadableStream<Uint8Array>({
    start: (controller) => controller.enqueue(new TextEncoder().encode('id: 1\ndata: "')),
    pull(controller) {
      if (pulled >= cap) return controller.close()
      pulled += chunk.byteLength
      controller.enqueue(chunk)
    },
  }), { status: 200, headers: { 'content-type': 'text/event-stream' } })
  return { response, pulled: () => pulled }
}

test('a line past maxLineBytes ends the stream with TOO_LARGE (16 MiB by default) instead of being buffered', async () => {
  const small = endlessLine()
  await rejectsWithCode(async () => {
    for await (const _ of readSse(small.response, { maxLineBytes: 1024 * 1024 })) void _
  }, 'TOO_LARGE')
  assert.ok(small.pulled() <= 1024 * 1024 + 64 * 1024, `read ${small.pulled()} bytes`)

  assert.is(DEFAULT_MAX_LINE_BYTES, 16 * 1024 * 1024)
  const big = endlessLine()
  await rejectsWithCode(async () => {
    for await (const _ of readSse(big.response)) void _
  }, 'TOO_LARGE')
  assert.ok(big.pulled() <= DEFAULT_MAX_LINE_BYTES + 64 * 1024, `read ${big.pulled()} bytes`)

  const long = 'y'.repeat(2 * 1024 * 1024)
  const messages = []
  for await (const message of readSse(new Response(frame(1, JSON.stringify(long))))) messages.push(message)
  assert.equal(messages.map((m) => [m.id, (m.data as string).length]), [['1', long.length]])
})

test('remoteAgent: maxLineBytes bounds its streams; a bad value is INVALID_OPTION', async () => {
  const server = await startServer(sessionAgent())
  const id = await newSession(server.url)
  const remote = remoteAgent({
    url: server.url, session: id, maxLineBytes: 256 * 1024,
    fetch: async (input, init) => (String(input).includes('/replies') ? endlessLine().response : fetch(input, init)),
  })
  try {
    await within(rejectsWithCode(remote.reply('hi'), 'TOO_LARGE'), LONG, 'the reply')
    for (const maxLineBytes of [0, -1, 1.5, '16' as unknown as number])
      await rejectsWithCode(() => remoteAgent({ url: server.url, session: id, maxLineBytes }), 'INVALID_OPTION')
  } finally {
    remote.close()
    await server.close()
  }
})

test('aborting a reply ends the iteration once the server has interrupted it, even though the server keeps the stream open', async () => {
  const server = await startServer(sessionAgent(30))
  const id = await newSession(server.url)
  const remote = remoteAgent({ url: server.url, session: id, fetch: rewriting('/replies', holdFrom((text) => text.includes('REPLY_END'))) })
  try {
    const controller = new AbortController()
    const events: OutputEvent[] = []
    await within((async () => {
      for await (const event of remote.replyStream('stream 400', { signal: controller.signal })) {
        events.push(event)
        if (event.type === 'TEXT_BLOCK_DELTA') controller.abort()
      }
    })(), LONG, 'the aborted stream')
    const end = events.at(-1)!
    assert.is(end.type === 'REPLY_END' && end.finished_reason, 'interrupted')
    assert.is(remote.state.status, 'idle')

    const again = new AbortController()
    const sub = remote.events$.subscribe((e) => { if (e.type === 'TEXT_BLOCK_DELTA') again.abort() })
    const msg = await within(remote.reply('stream 400', { signal: again.signal }), LONG, 'the aborted reply')
    sub.unsubscribe()
    assert.is(msg.finished_reason, 'interrupted')
    assert.is(msg.text, DEFAULT_INTERRUPT_TEXT)
    assert.equal(replay(remote.log), await serverState(server.url, id))
  } finally {
    remote.close()
    await server.close()
  }
})

test('close() settles a pending sync() and reply() with CLOSED, and later calls too', async () => {
  const server = await startServer(sessionAgent(30))
  const id = await newSession(server.url)
  const gate = gatedFetch('/events')
  const syncing = remoteAgent({ url: server.url, session: id, fetch: gate.fetch })
  const replying = remoteAgent({ url: server.url, session: id, fetch: rewriting('/replies', holdFrom(() => true)) })
  try {
    await server.hub.session(id).reply('hello')
    const sync = syncing.sync()
    await gate.asked
    syncing.close()
    await within(rejectsWithCode(sync, 'CLOSED'), LONG, 'sync()')
    await rejectsWithCode(syncing.sync(), 'CLOSED')

    const reply = replying.reply('stream 400')
    await new Promise((resolve) => setTimeout(resolve, 50))
    replying.close()
    await within(rejectsWithCode(reply, 'CLOSED'), LONG, 'reply()')
    await rejectsWithCode(replying.reply('again'), 'CLOSED')
    await rejectsWithCode(replying.approve('c-1'), 'CLOSED')
  } finally {
    gate.open()
    syncing.close()
    replying.close()
    await server.close()
  }
})

test('a pending sync() and reply() reject with NOT_FOUND once the session is deleted', async () => {
  const server = await startServer(sessionAgent(30))
  const id = await newSession(server.url)
  let stateRead!: () => void
  const read = new Promise<void>((resolve) => (stateRead = resolve))
  const gate = gatedFetch('/events')
  const remote = remoteAgent({
    url: server.url, session: id,
    fetch: async (input, init) => {
      const response = await gate.fetch(input, init)
      if (String(input).endsWith(`/sessions/${id}`)) stateRead()
      return response
    },
  })
  const cut = remoteAgent({ url: server.url, session: id, fetch: rewriting('/replies', holdFrom((text) => text.includes('TEXT_BLOCK_DELTA'))) })
  try {
    await server.hub.session(id).reply('hello')
    const sync = remote.sync()
    await Promise.all([read, gate.asked])
    const reply = cut.reply('stream 400')
    await new Promise((resolve) => setTimeout(resolve, 100))
    const deleted = await fetch(`${server.url}/sessions/${id}`, { method: 'DELETE' })
    assert.is(deleted.status, 204)
    gate.open()
    await within(rejectsWithCode(sync, 'NOT_FOUND'), LONG, 'sync()')
    const outcome = await within(reply.then(() => null, (error: unknown) => error), LONG, 'reply()')
    assert.instance(outcome, AgentError)
    assert.is((outcome as AgentError).code, 'NOT_FOUND')
  } finally {
    gate.open()
    remote.close()
    cut.close()
    await server.close()
  }
})

test.run()
