// One surface over the three kinds of agent a program can hold: a local agent (`createAgent`), a
// hub session (`hub.session(id)`) and a remote agent (`remoteAgent` over a real `listen()` server on
// 127.0.0.1). Each driver maps the scenario's operations onto its kind's own API, as a user of that
// kind would write them; `state()` is what that kind shows at once (no extra sync).
import { createAgent, createHub, createServer, memoryStore, remoteAgent, type AgentEvent, type Hub, type SessionStore, type AgentState, type ExternalResult, type OutputEvent, type Reply, type CallRef } from '../../lib/index.js'
import { filter, firstValueFrom, take, toArray, type Observable } from 'rxjs'
import { listen } from '../../lib/node.js'
import { sessionTreeAgent } from '../helpers/sessionModel.js'

export interface RunOptions {
  signal?: AbortSignal
  rejectOnInterrupt?: boolean
  /** Stream the sub-agents' events too, tagged with their session. */
  descendants?: boolean
}

/** The agent's surface as the scenarios use it. */
export interface Subject {
  replyStream(input: string, options?: RunOptions): AsyncIterable<OutputEvent>
  reply(input: string, options?: RunOptions): Promise<Reply>
  /** A call of the tree: its id, or a call of `waiting_for` (which names its session). */
  approve(call: CallRef, input?: Record<string, unknown>): Promise<Reply>
  deny(call: CallRef, reason?: string): Promise<Reply>
  submitResult(call: CallRef, result: ExternalResult): Promise<Reply>
  interrupt(): Promise<unknown>
  /** The state as this kind shows it now. */
  state(): Promise<AgentState>
  /** The session's events as this kind holds them. */
  log(): Promise<readonly AgentEvent[]>
  /** Resolves on the next text delta any reply of the session streams (to stop a reply() mid-text). */
  nextDelta(): Promise<void>
}

export interface Driver {
  readonly kind: string
  open(): Promise<Subject>
  close(): Promise<void>
}

/** Milliseconds between the model's streamed deltas ("stream N" answers N deltas). */
const DELTA_MS = 10
/** The session agent, with a `delegate` tool that runs a sub-agent ("delegate stream 3"). */
const options = sessionTreeAgent(DELTA_MS)

/** The surface a local agent and a remoteAgent share, method for method (the type checker holds both to it). */
interface AgentSurface {
  replyStream(input: string, options?: RunOptions): AsyncIterable<OutputEvent>
  reply(input: string, options?: RunOptions): Promise<Reply>
  approve(call: CallRef, options?: { input?: Record<string, unknown> }): Promise<Reply>
  deny(call: CallRef, reason?: string): Promise<Reply>
  submitResult(call: CallRef, result: ExternalResult): Promise<Reply>
  interrupt(): Promise<unknown>
  readonly state: AgentState
  readonly log: readonly AgentEvent[]
  readonly events$: Observable<AgentEvent>
}

const nextDelta = async (events$: Observable<AgentEvent>) => void await firstValueFrom(events$.pipe(filter((e) => e.type === 'TEXT_BLOCK_DELTA')))

const direct = (agent: AgentSurface): Subject => ({
  replyStream: (input, run) => agent.replyStream(input, run),
  reply: (input, run) => agent.reply(input, run),
  approve: (id, input) => agent.approve(id, input ? { input } : {}),
  deny: (id, reason) => agent.deny(id, reason),
  submitResult: (id, result) => agent.submitResult(id, result),
  interrupt: () => agent.interrupt(),
  state: async () => agent.state,
  log: async () => agent.log,
  nextDelta: () => nextDelta(agent.events$),
})

export const localDriver = (): Driver => {
  const agents: ReturnType<typeof createAgent>[] = []
  return {
    kind: 'local agent',
    async open() {
      const agent = createAgent(options())
      agents.push(agent)
      return direct(agent)
    },
    async close() {
      await Promise.all(agents.map((agent) => agent.close()))
    },
  }
}

/** A store, or how to make one (e.g. a database store to migrate first), called on the first use. */
export type StoreSource = SessionStore | (() => Promise<SessionStore>)

/** A hub over `store` and what is built on it, made on first use (a spec file's top level only declares drivers), closed if made. */
const lazily = <T>(store: StoreSource, build: (hub: Hub) => Promise<T>) => {
  let made: Promise<{ hub: Hub; built: T }> | null = null
  return {
    get: () => (made ??= (async () => {
      const hub = createHub({ store: typeof store === 'function' ? await store() : store, agent: options })
      return { hub, built: await build(hub) }
    })()),
    async close(closeBuilt: (built: T) => Promise<void> = async () => {}) {
      if (!made) return
      const { hub, built } = await made
      await closeBuilt(built)
      await hub.close()
    },
  }
}

/** Sessions of a hub over `store` (default: in memory), used through their handles. */
export const hubDriver = (store: StoreSource = memoryStore(), kind = 'hub session'): Driver => {
  const ready = lazily(store, async () => null)
  return {
    kind,
    async open() {
      const { hub } = await ready.get()
      const { session_id } = await hub.create()
      const session = hub.session(session_id)
      // A handle answers a call of its tree as the agent does: approve / deny / submitResult with a CallRef, resolving to the resumed reply.
      return {
        replyStream: (input, run) => session.replyStream(input, run),
        reply: (input, run) => session.reply(input, run) as Promise<Reply>,
        approve: (call, input) => session.approve(call, input ? { input } : {}),
        deny: (call, reason) => session.deny(call, reason),
        submitResult: (call, result) => session.submitResult(call, result),
        interrupt: () => session.interrupt(),
        state: () => session.state(),
        // The log as the handle follows it, up to the state it shows (on PostgreSQL, once committed).
        log: async () => firstValueFrom(session.follow().pipe(take((await session.state()).seq), toArray())),
        nextDelta: async () => nextDelta(session.follow({ fromSeq: (await session.state()).seq })),
      }
    },
    close: () => ready.close(),
  }
}

/** remoteAgents over a real server on 127.0.0.1 whose hub keeps its sessions in `store` (default: in memory). */
export const remoteDriver = (store: StoreSource = memoryStore(), kind = 'remoteAgent'): Driver => {
  const ready = lazily(store, (hub) => listen(createServer({ hub }), { port: 0 }))
  const remotes: ReturnType<typeof remoteAgent>[] = []
  return {
    kind,
    async open() {
      const { hub, built: server } = await ready.get()
      const { session_id } = await hub.create()
      const remote = remoteAgent({ url: server.url, session: session_id })
      remotes.push(remote)
      return direct(remote)
    },
    async close() {
      for (const remote of remotes) remote.close()
      await ready.close((server) => server.close())
    },
  }
}
