// SSE framing (lib/server/sse.ts): ids and JSON data lines, keep-alive comments, and a reader that
// does not read being dropped at the high-water mark instead of buffered without bound.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { frame, sseStream, type SseSink } from '../../lib/server/sse.js'
import { readSse } from '../../lib/client/sse.js'

const test = suite('server/sse')
const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes)

test('an event is `id: <seq>` and one `data:` line of JSON; an error is `event: error`', () => {
  assert.is(text(frame({ type: 'X', text: 'a\nb' }, 7)), 'id: 7\ndata: {"type":"X","text":"a\\nb"}\n\n')
  assert.is(text(frame({ code: 'C' }, undefined, 'error')), 'event: error\ndata: {"code":"C"}\n\n')
})

test('events round-trip through the client reader with their ids; a failure is thrown as the coded error', async () => {
  let sink!: SseSink
  const body = sseStream({ keepAliveMs: 10_000, highWaterBytes: 1 << 16, start: (s) => void (sink = s) })
  sink.send({ n: 1 }, 1)
  sink.send({ n: 2 }, 2)
  sink.fail({ code: 'LOG_UNAVAILABLE', message: 'down' })
  const got: unknown[] = []
  try {
    for await (const m of readSse(new Response(body))) got.push([m.id, m.data])
    assert.unreachable('the error event throws')
  } catch (error) {
    assert.is((error as { code?: string }).code, 'LOG_UNAVAILABLE')
  }
  assert.equal(got, [['1', { n: 1 }], ['2', { n: 2 }]])
})

test('keep-alive comments flow on an idle stream', async () => {
  let stopped = false
  const body = sseStream({ keepAliveMs: 5, highWaterBytes: 1 << 16, start: () => () => void (stopped = true) })
  const reader = body.getReader()
  const { value } = await reader.read()
  assert.is(text(value!), ': keep-alive\n\n')
  await reader.cancel()
  assert.ok(stopped, 'cancelling runs the teardown')
})

test('a reader that does not read is dropped at the high-water mark: the queue stays bounded and the stream ends', async () => {
  let sink!: SseSink
  let tornDown = false
  const body = sseStream({ keepAliveMs: 10_000, highWaterBytes: 1000, start: (s) => {
    sink = s
    return () => void (tornDown = true)
  } })
  let accepted = 0
  while (sink.send({ delta: 'x'.repeat(80) }, accepted + 1)) accepted++
  assert.ok(sink.closed && tornDown, 'dropped and torn down')
  assert.ok(accepted < 12, `stopped near the mark (${accepted} events queued)`)
  assert.not.ok(sink.send({ late: true }, 99), 'nothing is queued after the drop')
  const ids: string[] = []
  for await (const m of readSse(new Response(body))) ids.push(m.id!)
  assert.is(ids.length, accepted + 1, 'what was queued is delivered, then the stream ends; the reader resumes from the last id')
})

test.run()
