// Opening a 100,000-event session (the lease, the reads, the checks and the agent's restore),
// without a snapshot (every event folded) and with one (only the tail after it).
import { createAgent, UserMsg } from '../../lib/index.js'
import { generateEvents } from '../generate.js'
import { fastModel, freshStore, ms } from './shared.js'

const timeOpen = async (store: Awaited<ReturnType<typeof freshStore>>, runs = 3) => {
  let best = Infinity
  for (let i = 0; i < runs; i++) {
    const t = performance.now()
    const agent = createAgent({ name: 'Bench', model: fastModel(5), log: await store.open('big'), session_id: 'big' })
    best = Math.min(best, performance.now() - t)
    await agent.close()
  }
  return best
}

export const openLarge = async (count = 100_000) => {
  const plain = await freshStore({ snapshots: false })
  await plain.create({ session_id: 'big' })
  const log = await plain.open('big')
  const events = [...generateEvents(count, 'big')]
  log.append(events, { expectedSeq: 0 })
  await log.flush()
  await log.close()
  const without = await timeOpen(plain)
  await plain.close()

  const snapshotting = await freshStore({ snapshots: { every: 1000 } }, plain.schema)
  const agent = createAgent({ name: 'Bench', model: fastModel(5), log: await snapshotting.open('big'), session_id: 'big' })
  await agent.reply(UserMsg({ content: 'one more' })) // its REPLY_END writes the snapshot
  await agent.close()
  const withSnapshot = await timeOpen(snapshotting)
  await snapshotting.close()
  return [
    `Open a ${events.length.toLocaleString('en')}-event session (lease, reads, checks, restore), best of 3:`,
    `  without a snapshot: ${ms(without)}`,
    `  with a snapshot:    ${ms(withSnapshot)} (${(without / withSnapshot).toFixed(0)}x faster)`,
  ]
}
