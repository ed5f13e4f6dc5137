// Stop a tree of sub-agents across processes: a child process (child.ts with `tree`) owns a root
// session whose tree (depth 3, 8 leaves streaming) streams; this process's hub, on the same
// schema, sends interrupt(); the time runs to the last REPLY_END of the tree as a follower here
// sees it (the root followed with its descendants). Baseline: the same tree owned by this process.
import { createHub, type Hub } from '../../lib/index.js'
import { treeRoot } from './models.js'
import { DATABASE_URL, freshStore, ms, percentile, startChild } from './shared.js'

/** 1 root, 2 + 4 sub-agents that delegate, 8 leaves: 15 agents (models.ts, treeRoot). */
const AGENTS = 15

/**
 * Follows `root` with its descendants; `streaming` resolves once the 8 leaves streamed a delta,
 * `ended` with the time the last of the 15 REPLY_ENDs arrived.
 */
const watchTree = (hub: Hub, root: string) => {
  const streamingLeaves = new Set<string>()
  let ends = 0
  let onStreaming = () => {}
  let onEnded = (_at: number) => {}
  const streaming = new Promise<void>((resolve) => (onStreaming = resolve))
  const ended = new Promise<number>((resolve) => (onEnded = resolve))
  const subscription = hub.session(root).follow({ descendants: true }).subscribe((event) => {
    const session = (event.metadata.session_id as string | undefined) ?? root
    if (event.type === 'TEXT_BLOCK_DELTA' && session !== root) {
      streamingLeaves.add(session)
      if (streamingLeaves.size === 8) onStreaming()
    }
    if (event.type === 'REPLY_END' && ++ends === AGENTS) onEnded(performance.now())
  })
  return { streaming, ended, stop: () => subscription.unsubscribe() }
}

export const treeStopLatency = async (rounds = 15) => {
  const store = await freshStore()
  const owner = await startChild([DATABASE_URL, store.schema, 'tree'])
  const hub = createHub({ store, agent: treeRoot })
  const remote: number[] = []
  const local: number[] = []
  const round = async (root: string, start: () => Promise<void>, ownerDone: () => Promise<unknown>) => {
    await store.create({ session_id: root })
    const watch = watchTree(hub, root)
    await start()
    await watch.streaming
    const t = performance.now()
    await hub.session(root).interrupt()
    const at = await watch.ended
    watch.stop()
    await ownerDone()
    return at - t
  }
  for (let i = 0; i < rounds; i++) {
    const from = owner.lines.length
    remote.push(await round(`remote${i}`, async () => { owner.send({ op: 'stream', session: `remote${i}` }) }, () => owner.nextLine(from + 1)))
    let streaming: Promise<void> = Promise.resolve()
    local.push(await round(`local${i}`, async () => {
      streaming = (async () => {
        for await (const _ of hub.session(`local${i}`).replyStream('go')) void _
      })()
    }, () => streaming))
  }
  owner.stop()
  await hub.close()
  const figures = (values: number[]) => `p50 ${ms(percentile(values, 50))}, p99 ${ms(percentile(values, 99))}`
  return [
    `(d) Stop a tree (depth 3, 8 streaming leaves, 15 sessions) on PostgreSQL: interrupt() to the last REPLY_END seen by a follower here (${rounds} rounds)`,
    `  tree owned by another process: ${figures(remote)} (goal: p50 under 50 ms)`,
    `  tree owned by this process:    ${figures(local)}; across processes = ${(percentile(remote, 50) / percentile(local, 50)).toFixed(1)}x`,
  ]
}
