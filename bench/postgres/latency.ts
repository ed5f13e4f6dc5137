// Latencies across processes. Stop: interrupt() through this process's hub while a child process
// owns the session and streams, until REPLY_END is committed; against the same interrupt on a
// session owned here. Follow: from the commit here to the delivery in a child process that
// follows the session; against a follower in this process.
import { createHub } from '../../lib/index.js'
import type { CommitInfo } from '../../lib/postgres.js'
import { DATABASE_URL, endlessModel, freshStore, ms, percentile, startChild } from './shared.js'

const sleep = (t: number) => new Promise((resolve) => setTimeout(resolve, t))
const now = () => performance.timeOrigin + performance.now()
const figures = (values: number[]) => `p50 ${ms(percentile(values, 50))}, p99 ${ms(percentile(values, 99))}`

export const stopLatency = async (rounds = 30) => {
  const store = await freshStore()
  await store.create({ session_id: 'remote' })
  await store.create({ session_id: 'local' })
  const owner = await startChild([DATABASE_URL, store.schema])
  const hub = createHub({ store, agent: () => ({ name: 'Bench', model: endlessModel(2) }) })
  const remote: number[] = []
  const local: number[] = []
  for (let i = 0; i < rounds; i++) {
    const from = owner.lines.length
    owner.send({ op: 'stream', session: 'remote' })
    await owner.nextLine(from)
    await sleep(20)
    let t = performance.now()
    await hub.session('remote').interrupt()
    remote.push(performance.now() - t)
    await owner.nextLine(from + 1)

    // Interrupt a reply that has started (an interrupt while the session is still opening finds nothing to stop).
    let started: () => void = () => {}
    const running = new Promise<void>((resolve) => (started = resolve))
    const streaming = (async () => {
      for await (const _ of hub.session('local').replyStream('go')) started()
    })()
    await running
    await sleep(20)
    t = performance.now()
    await hub.session('local').interrupt()
    local.push(performance.now() - t)
    await streaming
  }
  owner.stop()
  await hub.close()
  const ratio = percentile(remote, 50) / percentile(local, 50)
  return [
    `Stop latency, interrupt() to REPLY_END committed (${rounds} rounds):`,
    `  owner in another process: ${figures(remote)} (goal: p50 under 50 ms)`,
    `  owner in this process:    ${figures(local)}; across processes = ${ratio.toFixed(1)}x`,
  ]
}

export const followLatency = async (seconds = 3) => {
  const commits: { upTo: number; at: number }[] = []
  let total = 0
  const store = await freshStore({ onCommit: (info: CommitInfo) => commits.push({ upTo: (total += info.events), at: now() }) })
  await store.create({ session_id: 'f' })
  const follower = await startChild([DATABASE_URL, store.schema])
  follower.send({ op: 'follow', session: 'f', fromSeq: 0 })
  const localDeliveries: [number, number][] = []
  const subscription = store.follow('f').subscribe((e) => localDeliveries.push([e.metadata.seq as number, now()]))
  await sleep(300)
  const hub = createHub({ store, agent: () => ({ name: 'Bench', model: endlessModel(2) }) })
  const streaming = (async () => {
    for await (const _ of hub.session('f').replyStream('go')) void _
  })()
  await sleep(seconds * 1000)
  await hub.session('f').interrupt()
  await streaming
  await sleep(300)
  subscription.unsubscribe()
  const committedAt = (seq: number) => commits.find((c) => c.upTo >= seq)!.at
  const lags = (deliveries: [number, number][]) => deliveries.map(([seq, at]) => at - committedAt(seq))
  const remote = lags(follower.lines.slice(1).map((l) => l.split(' ').map(Number) as [number, number]))
  const local = lags(localDeliveries)
  follower.stop()
  await hub.close()
  return [
    `Follow latency, commit to delivery (${remote.length} events over ${seconds} s):`,
    `  follower in another process: ${figures(remote)}`,
    `  follower in this process:    ${figures(local)}; across processes = ${(percentile(remote, 50) / percentile(local, 50)).toFixed(1)}x`,
  ]
}
