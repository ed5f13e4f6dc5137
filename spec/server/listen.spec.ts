// listen() writing a long response body with backpressure: each wait for 'drain' removes its
// listeners once it ends, so a response that fills the socket buffer many times holds a fixed
// number of 'close' and 'drain' listeners (no MaxListenersExceededWarning on a long SSE stream).
// Whatever a socket sends (a malformed Host, TRACE, a handler that throws) is answered with a coded
// status or its connection is closed, and the process never dies of it; a body refused unread
// (413) closes its connection, so the next request on it is never read from the body's bytes.
import type { ServerResponse } from 'node:http'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { listen } from '../../lib/node.js'
import type { FetchHandler } from '../../lib/server/index.js'
import { watchCrashes } from '../helpers/hardening.js'
import { newSession, rawExchange, startServer, statuses, type AgentFactory } from './helpers.js'
import { scriptedModel, say } from '../../lib/index.js'

const test = suite('server/listen')

test('a body written through many backpressure waits keeps a fixed number of listeners on the response', async () => {
  const CHUNKS = 40
  const chunk = new Uint8Array(64 * 1024).fill(97)
  let response: ServerResponse | undefined
  const counts: number[] = []
  const handler = (() => {
    let sent = 0
    return new Response(new ReadableStream<Uint8Array>({
      pull(controller) {
        if (response) counts.push(response.listenerCount('close') + response.listenerCount('drain'))
        if (sent++ === CHUNKS) return controller.close()
        controller.enqueue(chunk)
      },
    }, { highWaterMark: 0 }))
  }) as unknown as FetchHandler
  const listening = await listen(handler, { port: 0 })
  listening.server.on('request', (_req, res: ServerResponse) => { response = res })
  const warnings: string[] = []
  const onWarning = (w: Error) => warnings.push(w.message)
  process.on('warning', onWarning)
  try {
    const body = await (await fetch(listening.url)).arrayBuffer()
    assert.is(body.byteLength, CHUNKS * chunk.byteLength)
    assert.ok(counts.length > CHUNKS / 2, `sampled ${counts.length} times`)
    assert.ok(Math.max(...counts) - Math.min(...counts) <= 2, `listeners grew: ${counts.join(',')}`)
    await new Promise((resolve) => setImmediate(resolve))
    assert.equal(warnings.filter((w) => w.includes('listeners')), [])
  } finally {
    process.off('warning', onWarning)
    await listening.close()
  }
})

const quiet: AgentFactory = () => ({ name: 'Friday', model: scriptedModel([[...say('Hi.', 1)]], { onExhausted: 'repeat-last' }) })

test('a malformed Host, TRACE, TRACK and CONNECT are answered with a coded status; the process lives and serves on', async () => {
  const server = await startServer(quiet)
  const watch = watchCrashes()
  try {
    const requests = [
      'GET /sessions HTTP/1.1\r\nHost: a b\r\nConnection: close\r\n\r\n',
      'GET /sessions HTTP/1.1\r\nHost: [::1\r\nConnection: close\r\n\r\n',
      'GET /sessions HTTP/1.1\r\nHost: a/b?c\r\nConnection: close\r\n\r\n',
      'TRACE / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n',
      'TRACK / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n',
    ]
    for (const request of requests) {
      const { text, closedByServer } = await rawExchange(server.url, request)
      assert.ok(closedByServer, `the server closed the connection of ${JSON.stringify(request.split('\r\n')[0])}`)
      const [status] = statuses(text)
      assert.ok(status === 400 || status === 405, `${JSON.stringify(request.slice(0, 40))} answered ${status}`)
      assert.match(text, /"code":"[A-Z_]+"/, text)
    }
    assert.equal(await watch.stop(), [])
    assert.is((await fetch(`${server.url}/sessions`)).status, 200, 'the server still answers')
    const absolute = await rawExchange(server.url, `GET ${server.url}/sessions HTTP/1.1\r\nHost: ignored.example\r\nConnection: close\r\n\r\n`)
    assert.equal(statuses(absolute.text), [200], 'an absolute-form target is served on its own authority')
    const rebound = await rawExchange(server.url, 'GET http://rebound.example/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n')
    assert.equal(statuses(rebound.text), [403])
  } finally {
    await watch.stop()
    await server.close()
  }
})

test('a handler that throws, or returns a header Node cannot write, costs only its own request', async () => {
  let mode = 0
  const handler = (async () => {
    mode++
    if (mode === 1) throw new Error('boom')
    if (mode === 2) return { status: 200, headers: new Headers(), body: null, get ok() { throw new Error('odd') } } as unknown as Response
    return new Response('fine')
  }) as unknown as FetchHandler
  const listening = await listen(handler, { port: 0 })
  const watch = watchCrashes()
  try {
    const first = await fetch(listening.url)
    assert.is(first.status, 500)
    assert.equal(await first.json(), { code: 'INTERNAL', message: 'The server failed while handling the request.' })
    await fetch(listening.url).then((r) => r.text()).catch(() => 'closed')
    assert.is(await (await fetch(listening.url)).text(), 'fine')
    assert.equal(await watch.stop(), [])
  } finally {
    await watch.stop()
    await listening.close()
  }
})

test('a body refused unread (413) closes its connection instead of leaving the body on it', async () => {
  const server = await startServer(quiet, { limits: { bodyBytes: 1024 } })
  try {
    const id = await newSession(server.url)
    const head = (length: number) => `POST /sessions/${id}/replies HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`
    const next = `GET /sessions/${id} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`
    const body = JSON.stringify({ input: 'x'.repeat(200_000) })
    for (const raw of [head(body.length) + body + next, head(999_999) + body.slice(0, 100_000)]) {
      const { text, closedByServer } = await rawExchange(server.url, raw)
      assert.is(statuses(text)[0], 413)
      assert.match(text.split('\r\n\r\n')[0], /\r\nconnection: close/i)
      assert.ok(closedByServer, 'the server closed the connection (it did not wait on the unread body)')
    }
    assert.is((await fetch(`${server.url}/sessions/${id}`)).status, 200, 'the server serves on')
  } finally {
    await server.close()
  }
})

test.run()
