// listen() writing a long response body with backpressure: each wait for 'drain' removes its
// listeners once it ends, so a response that fills the socket buffer many times holds a fixed
// number of 'close' and 'drain' listeners (no MaxListenersExceededWarning on a long SSE stream).
import type { ServerResponse } from 'node:http'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { listen } from '../../lib/node.js'
import type { FetchHandler } from '../../lib/server/index.js'

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

test.run()
