// The sweeper: a live process closes the replies a dead owner left running. Every `everyMs` it asks
// the store for orphans (sessions whose log ends inside a running reply while no writer holds
// them: `SessionStore.orphans`) and reclaims each, one after another: the hub opens it, which
// restores its agent, which closes the cut reply as a crash is closed (REPLY_END(interrupted),
// every tool call answered), then closes it again unless someone uses it meanwhile. So readers and
// followers in every process see such a reply end within about `everyMs` plus the time to open
// the session. Several processes may sweep at once: the session's lease lets one of them in.

/** How often a hub looks for orphaned replies by default (the bound readers can count on is about this plus an open). */
export const DEFAULT_SWEEP_MS = 1000

export interface Sweeper {
  /** Stops sweeping; resolves once a sweep in progress is over. */
  stop(): Promise<void>
}

export const startSweeper = (everyMs: number, orphans: () => Promise<string[]>, reclaim: (session_id: string) => Promise<void>): Sweeper => {
  let stopped = false
  let running: Promise<void> | null = null
  const sweep = async () => {
    let found: string[]
    try {
      found = await orphans()
    } catch {
      return // the store is down or closing: the next sweep tries again
    }
    for (const session_id of found) {
      if (stopped) return
      // Another process took it, it was deleted, or its agent could not be made: nothing to do here.
      await reclaim(session_id).catch(() => undefined)
    }
  }
  // A sweep that outlasts the interval is not started twice.
  const timer = setInterval(() => {
    running ??= sweep().finally(() => (running = null))
  }, everyMs)
  ;(timer as { unref?: () => void }).unref?.()
  return {
    async stop() {
      stopped = true
      clearInterval(timer)
      await running
    },
  }
}
