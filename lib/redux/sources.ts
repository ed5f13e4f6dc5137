// Where a followed session's events come from and its commands go: one SessionSource per session,
// over a local Agent, a hub's SessionHandle or a RemoteAgent. `follow()` gives the session's state
// once (a late follower starts there) and then its events after it, in order; `reply()` runs a
// reply as an Observable (unsubscribing stops it); the answers resolve once accepted or settled.
// No agent logic: each call is the source's own.
import { concat, defer, filter, ignoreElements, map, mergeAll, Observable, of } from 'rxjs'
import { Agent } from '../agent/agent.js'
import type { AgentInput } from '../agent/agent.js'
import type { AgentEvent } from '../core/events.js'
import { RemoteAgent } from '../client/remoteAgent.js'
import type { Hub, SessionHandle } from '../hub/types.js'
import type { CallRef } from '../subagents/tree.js'
import type { AgentState } from '../../reducers/state.js'

export type Followed = { state: AgentState } | { event: AgentEvent }

export interface SessionSource {
  follow(): Observable<Followed>
  reply(input: AgentInput): Observable<never>
  interrupt(options?: { when?: string }): Promise<unknown>
  approve(call: CallRef, input?: Record<string, unknown>): Promise<unknown>
  deny(call: CallRef, reason?: string): Promise<unknown>
  submitResult(call: CallRef, result: unknown): Promise<unknown>
  /** The source's own steer / queue, when it has them (UNSUPPORTED otherwise). */
  steer?(input: AgentInput): Promise<unknown>
  queue?(input: AgentInput): Promise<unknown>
  /** Ends what following made (a RemoteAgent made for the session). */
  close?(): void
}

/** Something that may have steer / queue (issue 30 adds them to the agents). */
type Talkable = { steer?: (input: AgentInput) => unknown; queue?: (input: AgentInput) => unknown }

const talk = (target: Talkable): Pick<SessionSource, 'steer' | 'queue'> => ({
  ...(typeof target.steer === 'function' && { steer: async (input: AgentInput) => target.steer!(input) }),
  ...(typeof target.queue === 'function' && { queue: async (input: AgentInput) => target.queue!(input) }),
})

const callId = (call: CallRef): string => (typeof call === 'string' ? call : call.id)

/** The state then the events after it, the events subscribed first (nothing in between is lost). */
const stateThenEvents = (events$: Observable<AgentEvent>, state: () => Promise<AgentState> | AgentState): Observable<Followed> =>
  new Observable<Followed>((subscriber) => {
    let seq: number | null = null
    const early: AgentEvent[] = []
    const subscription = events$.subscribe({
      next: (event) => {
        if (seq === null) early.push(event)
        else if ((event.metadata.seq as number) > seq) {
          seq = event.metadata.seq as number
          subscriber.next({ event })
        }
      },
      error: (error) => subscriber.error(error),
      complete: () => subscriber.complete(),
    })
    Promise.resolve().then(state).then((held) => {
      if (subscriber.closed) return
      seq = held.seq
      subscriber.next({ state: held })
      for (const event of early.splice(0)) if ((event.metadata.seq as number) > seq!) {
        seq = event.metadata.seq as number
        subscriber.next({ event })
      }
    }, (error) => subscriber.error(error))
    return subscription
  })

/** The events a reply stream (an async iterable) yields, dropped: the session's follow carries them. Unsubscribing leaves the stream (and so stops the reply). */
const runStream = (open: (signal: AbortSignal) => AsyncIterable<unknown>): Observable<never> => new Observable<never>((subscriber) => {
  const abort = new AbortController()
  let iterator: AsyncIterator<unknown> | null = null
  void (async () => {
    iterator = open(abort.signal)[Symbol.asyncIterator]()
    while (!abort.signal.aborted && !(await iterator.next()).done) {}
  })().then(() => subscriber.complete(), (error) => subscriber.error(error))
  return () => {
    if (abort.signal.aborted) return
    abort.abort()
    void iterator?.return?.()?.catch(() => {})
  }
})

export const agentSource = (agent: Agent): SessionSource => ({
  // A local agent's state is read at once, synchronously: the follow's first action is its state.
  follow: () => new Observable<Followed>((subscriber) => {
    const state = agent.state
    subscriber.next({ state })
    return agent.events$.pipe(filter((event) => (event.metadata.seq as number) > state.seq), map((event) => ({ event }))).subscribe(subscriber)
  }),
  reply: (input) => defer(() => agent.reply$(input)).pipe(ignoreElements()),
  interrupt: (options) => (options?.when ? (agent.interrupt as (o: unknown) => Promise<unknown>)(options) : agent.interrupt()),
  approve: (call, input) => agent.approve(call, { input }),
  deny: (call, reason) => agent.deny(call, reason),
  submitResult: (call, result) => agent.submitResult(call, result as Parameters<Agent['submitResult']>[1]),
  ...talk(agent as unknown as Talkable),
})

export const remoteSource = (remote: RemoteAgent, owned = false): SessionSource => ({
  // The state once the client has folded what the server holds (`sync`), then the events after it.
  follow: () => stateThenEvents(remote.events$, async () => {
    await remote.sync()
    return remote.state
  }),
  reply: (input) => runStream((signal) => remote.replyStream(input, { signal })),
  interrupt: (options) => (options?.when ? (remote.interrupt as (o: unknown) => Promise<unknown>)(options) : remote.interrupt()),
  approve: (call, input) => remote.approve(callId(call), input ? { input } : {}),
  deny: (call, reason) => remote.deny(callId(call), reason),
  submitResult: (call, result) => remote.submitResult(callId(call), result),
  ...talk(remote as unknown as Talkable),
  ...(owned && { close: () => remote.close() }),
})

export const hubSource = (hub: Hub, session_id: string): SessionSource => {
  const handle = hub.session(session_id)
  // A call of a sub-agent (named with its session) is answered on its own session.
  const owner = (call: CallRef): SessionHandle => (typeof call === 'object' && call.session_id && call.session_id !== session_id ? hub.session(call.session_id) : handle)
  return {
    follow: () => defer(async () => {
      const state = await handle.state()
      return concat(of<Followed>({ state }), handle.follow({ fromSeq: state.seq }).pipe(map((event) => ({ event }))))
    }).pipe(mergeAll()),
    reply: (input) => runStream(() => handle.replyStream(input)),
    interrupt: (options) => (options?.when ? (handle.interrupt as (o: unknown) => Promise<unknown>)(options) : handle.interrupt()),
    approve: (call, input) => owner(call).approve(callId(call), input ? { input } : {}),
    deny: (call, reason) => owner(call).deny(callId(call), reason),
    submitResult: (call, result) => owner(call).submitResult(callId(call), result),
    ...talk(handle as unknown as Talkable),
  }
}

/** The source of a session given in `agents`: a local Agent or a RemoteAgent. */
export const sourceOf = (agent: Agent | RemoteAgent): SessionSource => (agent instanceof RemoteAgent ? remoteSource(agent) : agentSource(agent as Agent))
