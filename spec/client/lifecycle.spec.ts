// The remote agent's life as a local agent's (issue 22): once a reply stream ends, `state` shows
// its end or pause (even when the followed events arrive late) and the next reply starts at once;
// and a program that uses a remote agent exits when its work is done, without close().
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { approveEvent, isOutputEvent, remoteAgent, type OutputEvent, type Reply } from '../../lib/index.js'
import { within } from '../helpers/hardening.js'
import { sessionAgent } from '../helpers/sessionModel.js'
import { newSession, startServer } from '../server/helpers.js'
import { cutAfterEvents, delayed, rewriting, serverState } from './helpers.js'

const test = suite('client/lifecycle')

test('after a reply stream ends, state shows its end (idle) or its pause, though the followed events arrive late; the next reply is not refused', async () => {
  const server = await startServer(sessionAgent())
  const id = await newSession(server.url)
  const remote = remoteAgent({ url: server.url, session: id, fetch: rewriting('/events', delayed(150)) })
  try {
    let last = 0
    for await (const event of remote.replyStream('stream 5')) last = event.metadata.seq as number
    assert.is(remote.state.status, 'idle')
    assert.is(remote.state.seq, last)
    for await (const event of remote.replyStream('again')) {
      last = event.metadata.seq as number
      if (event.type === 'REPLY_END') break
    }
    assert.is(remote.state.status, 'idle')
    assert.is(remote.state.seq, last)
    for await (const _ of remote.replyStream('ask /tmp/x')) void _
    assert.is(remote.state.status, 'paused')
    assert.equal(remote.state.waiting_for.map((c) => c.name), ['delete_file'])
    assert.equal(remote.state, await serverState(server.url, id))
  } finally {
    remote.close()
    await server.close()
  }
})

test('a resumed reply whose stream is cut goes on from the log to its end, though the log arrives late (an earlier pause of the reply is not its end)', async () => {
  const server = await startServer(sessionAgent())
  const id = await newSession(server.url)
  const paused = await server.hub.session(id).reply('ask /tmp/a') as Reply
  const remote = remoteAgent({ url: server.url, session: id, fetch: rewriting('/events', delayed(150), Infinity, rewriting('/replies', cutAfterEvents(1), 1)) })
  try {
    await remote.sync()
    assert.is(remote.state.status, 'paused')
    const events: OutputEvent[] = []
    for await (const event of remote.replyStream(approveEvent(remote.state, paused.waiting_for[0].id))) events.push(event)
    const start = remote.log.findIndex((e) => e.type === 'USER_CONFIRM_RESULT')
    const expected = remote.log.slice(start).filter((e) => isOutputEvent(e) && e.reply_id === paused.id)
    assert.equal(events.map((e) => e.id), expected.map((e) => e.id))
    const end = events.at(-1)!
    assert.is(end.type === 'REPLY_END' && end.finished_reason, 'completed')
    assert.is(remote.state.status, 'idle')
  } finally {
    remote.close()
    await server.close()
  }
})

const tsx = fileURLToPath(new URL('../../node_modules/tsx/dist/cli.mjs', import.meta.url))
const fixture = fileURLToPath(new URL('./fixtures/idleClient.ts', import.meta.url))

/** Runs the idle client to its exit; rejects if it is still running after `ms`. */
const runClient = (args: string[], ms = 30_000) => {
  const child = spawn(process.execPath, [tsx, fixture, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout.on('data', (d) => (output += d))
  child.stderr.on('data', (d) => (output += d))
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  return within(exited, ms, 'the program').then((code) => ({ code, output }), (error: unknown) => {
    child.kill('SIGKILL')
    throw new Error(`${(error as Error).message}; it printed: ${output}`)
  })
}

test('a program using a remote agent exits when its work is done, without close(): server elsewhere, or its own server closed', async () => {
  const server = await startServer(sessionAgent())
  const id = await newSession(server.url)
  try {
    const [elsewhere, own] = await Promise.all([runClient([server.url, id]), runClient(['own'])])
    assert.is(elsewhere.code, 0, elsewhere.output)
    assert.match(elsewhere.output, 'replied: done; status: idle')
    assert.is(own.code, 0, own.output)
    assert.match(own.output, 'Hello from the server!\nstatus: idle')
  } finally {
    await server.close()
  }
})

test.run()
