// SSE framing (lib/server/sse.ts): ids and JSON data lines, keep-alive comments, and a reader that
// does not read being dropped at the high-water mark instead of buffered without bound; a turn's
// frames go out as one chunk, every event once and in order, and `flush()` (control) at once.
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

/** Resolves with 'waiting' after a run of microtasks: a read still pending then waits for a later turn. */
const soonOrWaiting = <T>(promise: Promise<T>) => {
  let ticks: Promise<unknown> = Promise.resolve()
  for (let i = 0; i < 20; i++) ticks = ticks.then(() => undefined)
  return Promise.race([promise, ticks.then(() => 'waiting' as const)])
}

test('the frames of one turn are one chunk holding every event once, in order', async () => {
  let sink!: SseSink
  const body = sseStream({ keepAliveMs: 10_000, highWaterBytes: 1 << 20, start: (s) => void (sink = s) })
  const reader = body.getReader()
  for (let i = 1; i <= 200; i++) sink.send({ type: 'TEXT_BLOCK_DELTA', delta: `d${i}` }, i)
  const first = reader.read()
  assert.is(await soonOrWaiting(first), 'waiting', 'nothing is written before the turn ends')
  const { value } = await first
  const ids = [...text(value!).matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]))
  assert.equal(ids, Array.from({ length: 200 }, (_, i) => i + 1), 'one chunk: all 200, each once, in order')
  sink.send({ type: 'TEXT_BLOCK_DELTA', delta: 'd201' }, 201)
  sink.close()
  const rest: string[] = []
  for (let r = await reader.read(); !r.done; r = await reader.read()) rest.push(text(r.value))
  assert.equal([...rest.join('').matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1])), [201])
})

test('flush() after a control event hands the queued frames and it to the reader now, not at the end of the turn', async () => {
  let sink!: SseSink
  const body = sseStream({ keepAliveMs: 10_000, highWaterBytes: 1 << 20, start: (s) => void (sink = s) })
  const reader = body.getReader()
  for (let i = 1; i <= 50; i++) sink.send({ type: 'TEXT_BLOCK_DELTA', delta: `d${i}` }, i)
  sink.send({ type: 'REPLY_END', finished_reason: 'interrupted' }, 51)
  sink.flush()
  const read = await soonOrWaiting(reader.read())
  assert.is.not(read, 'waiting', 'readable within microtasks')
  const chunk = text((read as ReadableStreamReadResult<Uint8Array>).value!)
  assert.equal([...chunk.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1])), Array.from({ length: 51 }, (_, i) => i + 1), 'the deltas before it, then the end, once each')
  sink.close()
  assert.ok((await reader.read()).done, 'nothing is written twice')
})

test.run()
