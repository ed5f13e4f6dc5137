// remoteAgent's reply stream with `descendants: true` (issue 21): the sub-agents' events come
// interleaved, each tagged with its session, as from a local agent; they are checked like every
// event received (a malformed one, one with an SSE id or one whose seq goes back in its session ends
// the stream with INVALID_EVENT) but never folded: `state` and `log` hold the session's own events.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { isOutputEvent, remoteAgent, replay, type OutputEvent } from '../../lib/index.js'
import { ev } from '../helpers/events.js'
import { rejectsWithCode } from '../helpers/expect.js'
import { within } from '../helpers/hardening.js'
import { sessionTreeAgent } from '../helpers/sessionModel.js'
import { newSession, startServer } from '../server/helpers.js'
import { eventually } from '../subagents/helpers/hubTree.js'
import { cutAfterEvents, frame, gatedFetch, rewriting, serverState, sseThenOpen } from './helpers.js'

const test = suite('client/descendants')
const LONG = 15_000

/** A reply stream's body with `frames` put in after its first event (a forged server's additions). */
const insertAfterFirst = (frames: string[]) => (response: Response): Response => {
  const reader = response.body!.getReader()
  const decoder = new TextDecoder()
  const encoder = new TextEncoder()
  let text = ''
  let inserted = false
  return new Response(new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read()
      if (done) {
        if (text) controller.enqueue(encoder.encode(text))
        return controller.close()
      }
      if (inserted) return controller.enqueue(value)
      text += decoder.decode(value, { stream: true })
      const end = text.indexOf('\n\n')
      if (end < 0) return
      inserted = true
      controller.enqueue(encoder.encode(`${text.slice(0, end + 2)}${frames.join('')}${text.slice(end + 2)}`))
      text = ''
    },
    cancel: () => reader.cancel(),
  }), { status: response.status, headers: response.headers })
}

const tagOf = (event: OutputEvent) => event.metadata.session_id

/** `tagged`, the sub-agent's events a stream yielded, are its log's output events, each once, in order. */
const assertSubagentLog = async (url: string, child: string, tagged: OutputEvent[]) => {
  const childLog = remoteAgent({ url, session: child })
  try {
    await childLog.sync()
    assert.equal(tagged.map((e) => e.id), childLog.log.filter(isOutputEvent).map((e) => e.id), 'the sub-agent\'s output events, each once, in order')
  } finally {
    childLog.close()
  }
}

test('the sub-agent\'s events are yielded, tagged with its session, between its call\'s start and end; state and log stay the session\'s own, as the server holds them', async () => {
  const server = await startServer(sessionTreeAgent())
  const id = await newSession(server.url)
  const remote = remoteAgent({ url: server.url, session: id })
  try {
    const events: OutputEvent[] = []
    for await (const event of remote.replyStream('delegate stream 3', { descendants: true })) events.push(event)
    const tagged = events.filter((e) => tagOf(e) !== undefined)
    const child = (await server.hub.session(id).tree()).children[0].session_id
    assert.ok(tagged.length > 0 && tagged.every((e) => tagOf(e) === child), 'every tagged event names the sub-agent')
    assert.equal(tagged.map((e) => e.type).filter((t) => t !== 'TEXT_BLOCK_DELTA'), ['REPLY_START', 'MODEL_CALL_START', 'TEXT_BLOCK_START', 'TEXT_BLOCK_END', 'MODEL_CALL_END', 'REPLY_END'])
    const untagged = events.filter((e) => tagOf(e) === undefined)
    assert.is(untagged.at(-1)?.type, 'REPLY_END')
    const state = await remote.sync()
    assert.equal(state, await serverState(server.url, id))
    assert.equal(replay(remote.log), state)
    assert.ok(remote.log.every((e) => e.metadata.session_id === undefined), 'no tagged event in the log')
    assert.equal(untagged.map((e) => e.id), remote.log.filter(isOutputEvent).filter((e) => e.reply_id === untagged[0].reply_id).map((e) => e.id), 'the session\'s own events, each once')
  } finally {
    remote.close()
    await server.close()
  }
})

test('tagged events with seqs below the session\'s, even a REPLY_END, neither end the reply nor change the state; without descendants nothing is tagged', async () => {
  const server = await startServer(sessionTreeAgent())
  const id = await newSession(server.url)
  const forged = [
    ev('REPLY_START', { reply_id: 'r-x', session_id: 'other', name: 'Helper', role: 'assistant', metadata: { seq: 1, session_id: 'other' } }),
    ev('REPLY_END', { reply_id: 'r-x', session_id: 'other', finished_reason: 'completed', error: null, metadata: { seq: 2, session_id: 'other' } }),
  ]
  const remote = remoteAgent({ url: server.url, session: id, fetch: rewriting('/replies', insertAfterFirst(forged.map((e) => frame(undefined, JSON.stringify(e)))), 1) })
  try {
    const events: OutputEvent[] = []
    for await (const event of remote.replyStream('stream 3', { descendants: true })) events.push(event)
    assert.equal(events.slice(1, 3).map((e) => e.id), forged.map((e) => e.id))
    assert.is(events.at(-1)?.type, 'REPLY_END')
    assert.is(tagOf(events.at(-1)!), undefined, 'the reply ends with its own REPLY_END')
    const state = await remote.sync()
    assert.equal(state, await serverState(server.url, id))
    assert.equal(replay(remote.log), state)
    assert.not.ok(remote.log.some((e) => forged.some((f) => f.id === e.id)), 'the forged events are not in the log')
    const plain: OutputEvent[] = []
    for await (const event of remote.replyStream('delegate stream 3')) plain.push(event)
    assert.ok(plain.every((e) => tagOf(e) === undefined), 'without descendants, no sub-agent event')
  } finally {
    remote.close()
    await server.close()
  }
})

test('a stream cut by the network while the sub-agent runs goes on from the log with the sub-agents\' events: each event of the session and of the sub-agent once, in order, to their ends; the state is the server\'s', async () => {
  const server = await startServer(sessionTreeAgent(20))
  const id = await newSession(server.url)
  // Cut after the sub-agent's first events (the 7th event is the call's TOOL_RESULT_START).
  const CUT = 9
  const remote = remoteAgent({ url: server.url, session: id, fetch: rewriting('/replies', cutAfterEvents(CUT), 1) })
  try {
    const events: OutputEvent[] = []
    for await (const event of remote.replyStream('delegate stream 5', { descendants: true })) events.push(event)
    assert.ok(events.slice(0, CUT).some((e) => tagOf(e) !== undefined), 'the sub-agent\'s first events came before the cut')
    const own = events.filter((e) => tagOf(e) === undefined)
    const state = await remote.sync()
    assert.equal(own.map((e) => e.id), remote.log.filter(isOutputEvent).filter((e) => e.reply_id === own[0].reply_id).map((e) => e.id))
    const end = own.at(-1)!
    assert.is(end.type === 'REPLY_END' && end.finished_reason, 'completed')
    assert.equal(state, await serverState(server.url, id))
    // The sub-agent's events: after the cut too, each once, in its log's order, to its REPLY_END.
    const childId = (await server.hub.session(id).tree()).children[0].session_id
    const tagged = events.filter((e) => tagOf(e) !== undefined)
    assert.ok(tagged.every((e) => tagOf(e) === childId), 'every tagged event names the sub-agent')
    assert.ok(events.slice(CUT).some((e) => tagOf(e) === childId), 'the sub-agent\'s events after the cut are yielded')
    await assertSubagentLog(server.url, childId, tagged)
    assert.is(tagged.at(-1)?.type, 'REPLY_END')
  } finally {
    remote.close()
    await server.close()
  }
})

test('a cut stream that reads the log again only once the reply has ended still yields the sub-agent\'s events after the cut, before the reply\'s end', async () => {
  const server = await startServer(sessionTreeAgent(5))
  const id = await newSession(server.url)
  const late = gatedFetch('descendants=1')
  const remote = remoteAgent({ url: server.url, session: id, fetch: rewriting('/replies', cutAfterEvents(9), 1, late.fetch) })
  try {
    const events: OutputEvent[] = []
    const reading = (async () => {
      for await (const event of remote.replyStream('delegate stream 5', { descendants: true })) events.push(event)
    })()
    await within(late.asked, LONG, 'the resume')
    await eventually('the reply has ended on the server', async () => (await serverState(server.url, id)).status === 'idle' && (await serverState(server.url, id)).seq > 9)
    late.open()
    await within(reading, LONG, 'the reply stream')
    const childId = (await server.hub.session(id).tree()).children[0].session_id
    await assertSubagentLog(server.url, childId, events.filter((e) => tagOf(e) === childId))
    assert.is(events.at(-1)?.type, 'REPLY_END')
    assert.is(tagOf(events.at(-1)!), undefined)
    assert.equal(events.filter((e) => tagOf(e) === undefined).map((e) => e.id), remote.log.filter(isOutputEvent).map((e) => e.id))
  } finally {
    remote.close()
    await server.close()
  }
})

test('a cut stream whose sub-agent then asks ends at the reply\'s pause, though the stream it goes on from is cut too: every event once, and state shows the pause', async () => {
  const server = await startServer(sessionTreeAgent(20))
  const id = await newSession(server.url)
  // The reply stream cut after the sub-agent's first events, the stream read after it cut after its first 2.
  const cuts = rewriting('/replies', cutAfterEvents(9), 1, rewriting('descendants=1', cutAfterEvents(2), 1))
  const remote = remoteAgent({ url: server.url, session: id, fetch: cuts })
  try {
    const events: OutputEvent[] = []
    await within((async () => {
      for await (const event of remote.replyStream('delegate ask /tmp/x', { descendants: true })) events.push(event)
    })(), LONG, 'the reply stream')
    const own = events.filter((e) => tagOf(e) === undefined)
    const tagged = events.filter((e) => tagOf(e) !== undefined)
    assert.is(events.at(-1)?.type, 'REQUIRE_EXTERNAL_EXECUTION')
    assert.is(tagOf(events.at(-1)!), undefined, 'it ends at the session\'s own pause')
    assert.is(remote.state.status, 'paused')
    const state = await remote.sync()
    assert.equal(state, await serverState(server.url, id))
    assert.equal(own.map((e) => e.id), remote.log.filter(isOutputEvent).filter((e) => e.reply_id === own[0].reply_id).map((e) => e.id))
    const childId = (await server.hub.session(id).tree()).children[0].session_id
    await assertSubagentLog(server.url, childId, tagged)
    assert.is(tagged.at(-1)?.type, 'REQUIRE_USER_CONFIRM')
  } finally {
    remote.close()
    await server.close()
  }
})

test('the signal stops a cut stream read on with the sub-agents\' events: it ends with the reply\'s interrupted REPLY_END, each event once, and state shows it', async () => {
  const server = await startServer(sessionTreeAgent(5))
  const id = await newSession(server.url)
  const remote = remoteAgent({ url: server.url, session: id, fetch: rewriting('/replies', cutAfterEvents(9), 1) })
  const controller = new AbortController()
  try {
    const events: OutputEvent[] = []
    await within((async () => {
      for await (const event of remote.replyStream('delegate stream 400', { descendants: true, signal: controller.signal })) {
        events.push(event)
        if (events.length > 12 && tagOf(event) !== undefined) controller.abort()
      }
    })(), LONG, 'the stopped reply stream')
    const end = events.at(-1)!
    assert.is(tagOf(end), undefined)
    assert.is(end.type === 'REPLY_END' && end.finished_reason, 'interrupted')
    assert.is(new Set(events.map((e) => e.id)).size, events.length, 'each event once')
    assert.is(remote.state.status, 'idle')
    assert.equal(await remote.sync(), await serverState(server.url, id))
  } finally {
    remote.close()
    await server.close()
  }
})

test('a bad tagged event ends the stream with INVALID_EVENT: a malformed one, one with an SSE id, one whose seq goes back in its session; nothing bad is yielded or folded', async () => {
  const server = await startServer(sessionTreeAgent())
  const id = await newSession(server.url)
  const start = ev('REPLY_START', { reply_id: 'r-1', session_id: id, name: 'Friday', role: 'assistant', metadata: { seq: 2 } })
  const childStart = ev('REPLY_START', { reply_id: 'r-2', session_id: 'child', name: 'Helper', role: 'assistant', metadata: { seq: 2, session_id: 'child' } })
  const childBlock = ev('TEXT_BLOCK_START', { reply_id: 'r-2', block_id: 'b-1', metadata: { seq: 1, session_id: 'child' } })
  const streams = {
    malformed: [frame(undefined, JSON.stringify(start)), frame(undefined, JSON.stringify({ type: 'TEXT_BLOCK_DELTA', delta: 'x', metadata: { seq: 3, session_id: 'child' } }))],
    'without a seq': [frame(undefined, JSON.stringify(start)), frame(undefined, JSON.stringify({ ...childStart, metadata: { session_id: 'child' } }))],
    'with an id': [frame(undefined, JSON.stringify(start)), frame(2, JSON.stringify(childStart))],
    'going back in its session': [frame(undefined, JSON.stringify(start)), frame(undefined, JSON.stringify(childStart)), frame(undefined, JSON.stringify(childBlock))],
  }
  const good = { malformed: 1, 'without a seq': 1, 'with an id': 1, 'going back in its session': 2 }
  try {
    for (const [what, frames] of Object.entries(streams)) {
      const remote = remoteAgent({ url: server.url, session: id, fetch: async (input, init) => (String(input).includes('/replies') ? sseThenOpen(frames) : fetch(input, init)) })
      try {
        const yielded: OutputEvent[] = []
        await within(rejectsWithCode(async () => {
          for await (const event of remote.replyStream('hi', { descendants: true })) yielded.push(event)
        }, 'INVALID_EVENT'), LONG, `the reply stream (${what})`)
        assert.is(yielded.length, good[what as keyof typeof good], what)
        assert.equal(remote.log, [], what)
      } finally {
        remote.close()
      }
    }
  } finally {
    await server.close()
  }
})

test.run()
