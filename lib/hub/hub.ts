// createHub: one object per process serving many sessions of a SessionStore. A session is opened
// on demand (its owned log, an agent on it, a reply cut by a crash closed on restore) and closed
// when idle or least recently used (lib/hub/live.ts). A request for a session that another process
// owns goes to that owner through the store's routing, when it has one (postgresStore); otherwise
// SESSION_BUSY. Handles (lib/hub/handle.ts) are cheap: nothing is kept per handle. A sweeper
// (sweeper.ts) closes replies whose owner died, when the store can find them.
import { checkKnownKeys, optionKeys } from '../core/strictOptions.js'
import { createAgent, type Agent } from '../agent/agent.js'
import { AgentError, describe } from '../core/errors.js'
import type { AgentEvent } from '../core/events.js'
import { checkSessionId } from '../stores/sessions.js'
import { appliedBefore, execute, type Command } from './commands.js'
import { isBusyElsewhere, type HubCore } from './core.js'
import { sessionHandle } from './handle.js'
import { LiveSessions, type LiveSession } from './live.js'
import { DEFAULT_SWEEP_MS, startSweeper } from './sweeper.js'
import { checkAncestry, closeAll, openTreeLogs, parentOf, refuseDetached, SubagentSessions } from './subagents.js'
import { openReply } from '../subagents/childLogs.js'
import { treeRunning } from '../subagents/tree.js'
import { subtreeIds, waitingParent } from './tree.js'
import type { LogStore } from '../core/log.js'
import { LINK_KEYS } from '../agent/treeLinks.js'
import type { Hub, HubOptions } from './types.js'

export const DEFAULT_MAX_LIVE = 1000
export const DEFAULT_IDLE_MS = 60_000
/** Orphaned sessions reclaimed per sweep at most (the rest wait for the next one). */
const SWEEP_BATCH = 100

const HUB_OPTION_KEYS = optionKeys<HubOptions>({ store: true, agent: true, maxLive: true, idleMs: true, sweepMs: true })

export const checkHubOptions = (options: HubOptions): Required<Pick<HubOptions, 'maxLive' | 'idleMs' | 'sweepMs'>> => {
  if (typeof options !== 'object' || options === null) throw new AgentError('INVALID_OPTION', `createHub expects { store, agent }; received ${describe(options)}.`)
  checkKnownKeys('createHub', options, HUB_OPTION_KEYS)
  const { store, agent, maxLive = DEFAULT_MAX_LIVE, idleMs = DEFAULT_IDLE_MS, sweepMs = DEFAULT_SWEEP_MS } = options
  if (typeof store?.open !== 'function' || typeof store.list !== 'function')
    throw new AgentError('INVALID_OPTION', `createHub: store must be a SessionStore (memoryStore(), directoryStore(dir), postgresStore({ pool })); received ${describe(store)}.`)
  if (typeof agent !== 'function') throw new AgentError('INVALID_OPTION', `createHub: agent must be a function (session_id) => agent options; received ${describe(agent)}.`)
  if (!Number.isInteger(maxLive) || maxLive < 1) throw new AgentError('INVALID_OPTION', `createHub: maxLive must be a whole number of at least 1; received ${describe(maxLive)}.`)
  if (typeof idleMs !== 'number' || !(idleMs > 0)) throw new AgentError('INVALID_OPTION', `createHub: idleMs must be a number of milliseconds above 0; received ${describe(idleMs)}.`)
  if (sweepMs !== false && (typeof sweepMs !== 'number' || !(sweepMs >= 10))) throw new AgentError('INVALID_OPTION', `createHub: sweepMs must be a number of milliseconds of at least 10, or false; received ${describe(sweepMs)}.`)
  return { maxLive, idleMs, sweepMs }
}

/** An observer of opened agents cannot break the opening: what it throws is dropped. */
const notify = (listener: (agent: Agent) => void, agent: Agent) => {
  try {
    listener(agent)
  } catch {
    // instrumentation failing must not fail the session
  }
}

/** The events of a log that can be read (none for a log opened from a snapshot past them). */
const readLog = (log: LogStore) => {
  try {
    return log.events
  } catch {
    return []
  }
}

export const createHub = (options: HubOptions): Hub => {
  const { maxLive, idleMs, sweepMs } = checkHubOptions(options)
  const { store } = options
  const opening = new Map<string, Promise<LiveSession>>()
  const closing = new Map<string, Promise<void>>()
  /** Deletes in progress: a session is not opened until its delete is over (then NOT_FOUND). */
  const deleting = new Map<string, Promise<void>>()
  const agentListeners = new Set<(agent: Agent) => void>()
  let closed = false

  const evict = (session: LiveSession): Promise<void> => {
    if (!live.delete(session)) return closing.get(session.session_id) ?? Promise.resolve()
    // Closing the root's agent closes its sub-agents' (their logs released with it).
    const done = session.agent.close().catch(() => undefined).finally(() => {
      closing.delete(session.session_id)
      subagents.forget(session)
    })
    closing.set(session.session_id, done)
    return done
  }
  const live = new LiveSessions(maxLive, idleMs, evict)
  // A sub-agent session held here answers routed requests like the root's (`server` is made below).
  const subagents = new SubagentSessions(store, (session_id) => live.get(session_id), (session_id) => server?.opened(session_id))
  /** The session held here: a root, or a sub-agent's held with its root. */
  const held = (session_id: string) => live.get(session_id) ?? subagents.get(session_id)

  const open = async (session_id: string, alone = false): Promise<LiveSession> => {
    await deleting.get(session_id)?.catch(() => undefined)
    await closing.get(session_id)
    const log = await store.open(session_id)
    const reply = openReply(log)
    // A sub-agent whose reply has not ended belongs to its tree: opening its root (up the tree)
    // reopens it there, so it is never closed or resumed in a way its parent does not know.
    if (reply?.parent && !alone) {
      await log.close()
      await checkAncestry(store, session_id, reply.parent.session_id)
      await core.acquire(reply.parent.session_id).catch(() => undefined)
      return subagents.get(session_id) ?? open(session_id, true)
    }
    const children = new Map<string, LogStore>()
    let reopened = new Map<string, LogStore>()
    try {
      reopened = await openTreeLogs(store, session_id, reply?.links ?? [])
      const agentOptions = await options.agent(session_id)
      const subagentLogs = subagents.logsFor(session_id, children, reopened)
      const agent = createAgent({ ...agentOptions, log, session_id, subagentLogs })
      // A sub-agent's session outside its tree (its reply ended, or its parent no longer waits on it) only takes a Stop.
      const parent = parentOf(readLog(log), await store.info(session_id).then((info) => info.metadata, () => ({})))
      const detached = parent && { session_id: parent.session_id, tool_call_id: parent.tool_call_id }
      const session: LiveSession = { session_id, agent, log, users: 0, lastUsed: Date.now(), failed: false, unwatch: () => {}, children, ...(detached && { detached }) }
      session.unwatch = agent.onLogFailure(() => {
        session.failed = true
        void evict(session)
      })
      live.add(session)
      // Held until the callers waiting for this open have had their turn to use it: trimming past
      // maxLive (here, or on another session's release) must not close it before its first use.
      setTimeout(live.use(session), 0)
      for (const listener of agentListeners) notify(listener, agent)
      live.trim()
      server?.opened(session_id)
      for (const child of children.keys()) server?.opened(child)
      return session
    } catch (error) {
      await log.close().catch(() => undefined)
      await closeAll(children)
      throw error
    } finally {
      await closeAll(reopened) // those the restored tree did not reopen
    }
  }

  const core: HubCore = {
    options,
    acquire(session_id) {
      if (closed) return Promise.reject(new AgentError('CLOSED', 'The hub is closed; create a new one.'))
      const session = held(session_id)
      if (session && !session.failed) return Promise.resolve(session)
      let pending = opening.get(session_id)
      if (!pending) {
        pending = open(session_id).finally(() => opening.delete(session_id))
        opening.set(session_id, pending)
      }
      return pending
    },
    use: (session) => live.use(session.root ?? session),
    async run(session_id, command) {
      let session: LiveSession
      try {
        session = await core.acquire(session_id)
      } catch (error) {
        if (isBusyElsewhere(error) && store.routing) return store.routing.send(session_id, command, () => core.acquire(session_id).then(() => undefined))
        throw error
      }
      if (command.op !== 'interrupt') refuseDetached(session)
      const release = core.use(session)
      try {
        return await execute(session.agent, command)
      } finally {
        release()
      }
    },
    live: held,
  }

  // Requests routed here by other processes, for the sessions this hub holds.
  const server = store.routing?.serve({
    has: (session_id) => !!held(session_id) && !held(session_id)!.failed,
    sessions: () => [...live.values().map((s) => s.session_id), ...subagents.ids()],
    async run(session_id, command, request) {
      const session = held(session_id)
      if (!session || session.failed) return null
      // Not applied unless this process still owns the session (paused past its lease, another may
      // have applied it already): a request of a lease that is gone is dropped, its caller asks the owner.
      // A Stop is not held back by the proof (a query that may wait for a pooled connection): it
      // starts no side effect, and its append is fenced like any other.
      const proof = command.op === 'interrupt' ? null : session.log.confirm?.()
      if (proof && !(await proof.then(() => true, () => false))) return null
      if (!held(session_id) || session.failed) return null
      if (command.op !== 'interrupt') refuseDetached(session)
      const release = core.use(session)
      try {
        const earlier = await appliedBefore(session, request, () => store.read(session_id))
        return earlier ?? await execute(session.agent, command, request.id)
      } finally {
        release()
      }
    },
  })

  // A reply whose owner died: opening the session here closes it, then the session is let go.
  const reclaim = async (session_id: string) => {
    if (held(session_id) || opening.has(session_id) || deleting.has(session_id)) return
    // A sub-agent's session opens its tree's root: the root is what is let go.
    const acquired = await core.acquire(session_id)
    const session = acquired.root ?? acquired
    if (session.users === 0 && !treeRunning(session.agent)) await evict(session)
  }
  const sweeper = sweepMs !== false && store.orphans ? startSweeper(sweepMs, () => store.orphans!({ limit: SWEEP_BATCH }), reclaim) : null

  return {
    agent: options.agent,
    // A client's session is a root: the links of a tree are made by its agent tools alone.
    create: async (o) => {
      checkKnownKeys('hub.create', o, ['session_id', 'metadata'])
      const linked = LINK_KEYS.find((key) => typeof o?.metadata === 'object' && o.metadata !== null && key in o.metadata)
      if (linked) throw new AgentError('INVALID_OPTION', `metadata.${linked} links sessions of a tree, which only agentlog records (an agent tool's call and its sub-agent); use another key.`)
      return store.create(o)
    },
    list: async (o) => {
      checkKnownKeys('hub.list', o, ['limit', 'after'])
      return store.list(o)
    },
    session: (session_id) => sessionHandle(core, checkSessionId(session_id)),
    // A delete interrupts a reply running here (closing the session waits for its REPLY_END), then
    // deletes under the session's lease, then its sub-agents' sessions (a tree goes whole); opening
    // the session waits until the delete is over. A sub-agent whose parent still waits on it is
    // refused: the root is what is stopped or deleted.
    async delete(session_id) {
      checkSessionId(session_id)
      const previous = deleting.get(session_id)
      const run = (async () => {
        await previous?.catch(() => undefined)
        await opening.get(session_id)?.catch(() => undefined)
        const parent = await waitingParent(store, session_id)
        if (parent !== null)
          throw new AgentError('SESSION_BUSY', `Session ${session_id} is a sub-agent whose parent ${parent} still waits on it; interrupt or delete the root of its tree instead.`, { parent })
        const session = live.get(session_id)
        if (session) await evict(session)
        const below = await subtreeIds(store, session_id)
        await store.delete(session_id)
        for (const id of below) await store.delete(id).catch((error: unknown) => {
          if (!(error instanceof AgentError && error.code === 'NOT_FOUND')) throw error
        })
      })()
      deleting.set(session_id, run)
      try {
        await run
      } finally {
        if (deleting.get(session_id) === run) deleting.delete(session_id)
      }
    },
    onAgent(listener) {
      agentListeners.add(listener)
      for (const session of live.values()) notify(listener, session.agent)
      return () => void agentListeners.delete(listener)
    },
    async close() {
      if (closed) return
      closed = true
      server?.stop()
      live.stop()
      await sweeper?.stop()
      await Promise.allSettled([...opening.values()])
      await Promise.all(live.values().map(evict))
      await store.close()
    },
  }
}
