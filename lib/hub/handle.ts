// A SessionHandle: the agent's surface for one session, wherever its owner runs. A reply runs on
// the live agent when this process owns the session (opening it on demand); commands go through
// the hub's `run`, which routes them to the owner elsewhere. `state()` of a session nobody here
// holds is folded from the store (from its snapshot, when the store keeps one).
import { defer, mergeAll, type Observable } from 'rxjs'
import type { AgentEvent, OutputEvent } from '../core/events.js'
import type { Msg } from '../core/messages.js'
import { AgentError } from '../core/errors.js'
import type { ReplyOptions } from '../agent/replyOptions.js'
import type { AgentInput } from '../agent/agent.js'
import type { AgentState } from '../../reducers/state.js'
import { toMessage, type Command } from './commands.js'
import { answerInput, callOf, isAnswer, refOf, whereWaiting, type Answer } from './answers.js'
import { asReply, type Reply } from '../agent/text.js'
import { isBusyElsewhere, type HubCore } from './core.js'
import { refuseDetached } from './subagents.js'
import { remoteReply } from './remoteReply.js'
import { followTree } from './followTree.js'
import { sessionTree, subagentsOpenAt } from './tree.js'
import type { SessionHandle } from './types.js'
import { sessionState } from './state.js'
import { storedTreeWaiting } from './waiting.js'
import { storedParent } from './linkedChild.js'

/** The live session for a reply, or null when another process owns it (and the store can route). */
const ownedHere = async (core: HubCore, session_id: string) => {
  try {
    return await core.acquire(session_id)
  } catch (error) {
    if (isBusyElsewhere(error) && core.options.store.routing) return null
    throw error
  }
}

const DONE: IteratorResult<OutputEvent> = { value: undefined, done: true }

/**
 * A reply's events: the live agent's own iterator when this process owns the session (opened on
 * the first next()), else the routed reply's. No generator sits in between, so an event costs one
 * `then` here rather than a delegating generator's promises; the session is released at the end.
 */
const stream = (core: HubCore, session_id: string, given: AgentInput | string | Answer, options: ReplyOptions = {}): AsyncIterable<OutputEvent> => ({
  [Symbol.asyncIterator](): AsyncIterator<OutputEvent> {
    let opening: Promise<AsyncIterator<OutputEvent>> | null = null
    let inner: AsyncIterator<OutputEvent> | null = null
    let release = () => {}
    let ended = false
    const end = () => {
      ended = true
      release()
    }
    const open = async () => {
      const input = isAnswer(given) ? await inputFor(core, session_id, given) : given
      const session = await ownedHere(core, session_id)
      if (!session) return (inner = remoteReply(core, session_id, input, options).events())
      refuseDetached(session)
      release = core.use(session)
      try {
        return (inner = session.agent.replyStream(toMessage(input), options)[Symbol.asyncIterator]())
      } catch (error) {
        end()
        throw error
      }
    }
    const settle = (result: IteratorResult<OutputEvent>) => {
      if (result.done) end()
      return result
    }
    const fail = (error: unknown): never => {
      end()
      throw error
    }
    return {
      next: () => {
        if (ended) return Promise.resolve(DONE)
        if (inner) return inner.next().then(settle, fail)
        opening ??= open()
        return opening.then((it) => it.next().then(settle, fail), fail)
      },
      async return() {
        if (ended || !opening) {
          ended = true
          return DONE
        }
        try {
          await (await opening).return?.()
        } finally {
          end()
        }
        return DONE
      },
    }
  },
})

export const sessionHandle = (core: HubCore, session_id: string): SessionHandle => {
  const handle: SessionHandle = {
    session_id,
    replyStream: (input, options) => stream(core, session_id, input, options),
    async reply(given: AgentInput | string | Answer, options: ReplyOptions = {}): Promise<Msg> {
      const input = isAnswer(given) ? await inputFor(core, session_id, given) : given
      const session = await ownedHere(core, session_id)
      if (!session) return remoteReply(core, session_id, input, options).result()
      refuseDetached(session)
      const release = core.use(session)
      try {
        return await session.agent.reply(toMessage(input), options)
      } finally {
        release()
      }
    },
    // An answer ({ approve | deny | submit }) is built where the session is owned, from the state of
    // the session its call waits in; a message or an input event is applied as it is.
    dispatch: (input, options = {}) => core.run(session_id, isAnswer(input) ? answerCommand(input) : { op: 'input', input, ...options }),
    async interrupt(options = {}) {
      const caused = await core.run(session_id, { op: 'interrupt', ...options })
      return { queue: caused.flatMap((e) => (e.type === 'QUEUE_RETURNED' ? e.returned : [])) }
    },
    async steer(input) {
      const caused = await core.run(session_id, { op: 'steer', input })
      const event = caused.find((e) => e.type === 'MESSAGE_STEERED' || e.type === 'USER_MESSAGE')
      if (event?.type === 'MESSAGE_STEERED') return { id: event.msg.id, reply_id: event.reply_id }
      if (event?.type === 'USER_MESSAGE') return { id: event.msg.id, reply_id: null }
      throw new AgentError('INTERNAL', 'The steer was not recorded.')
    },
    async queue(input) {
      const caused = await core.run(session_id, { op: 'queue', input })
      const event = caused.find((e) => e.type === 'MESSAGE_QUEUED')
      if (event?.type !== 'MESSAGE_QUEUED') throw new AgentError('INTERNAL', 'The message was not queued.')
      // Its place: where it waits now (0 once it started, or when it started at once).
      const position = (await sessionState(core, session_id)).queue.findIndex((e) => e.id === event.msg.id)
      return { id: event.msg.id, position: Math.max(0, position) }
    },
    async unqueue(id) {
      await core.run(session_id, { op: 'unqueue', id })
    },
    approve(call, options = {}, replyOptions) {
      return answered(handle, core, { approve: call, ...(options.input !== undefined && { input: options.input }) }, replyOptions)
    },
    deny(call, reason, replyOptions) {
      return answered(handle, core, { deny: call, ...(reason !== undefined && { reason }) }, replyOptions)
    },
    submitResult(call, result, replyOptions) {
      return answered(handle, core, { submit: call, result }, replyOptions)
    },
    state: () => sessionState(core, session_id),
    follow(options = {}): Observable<AgentEvent> {
      const { store } = core.options
      if (!options.descendants) return store.follow(session_id, options)
      const { fromSeq = 0 } = options
      // Resuming: the sub-agents of the reply in progress at `fromSeq` (started before it) are followed too.
      return fromSeq === 0 ? followTree(store, session_id) : defer(async () => followTree(store, session_id, { fromSeq, open: await subagentsOpenAt(store, session_id, fromSeq) })).pipe(mergeAll())
    },
    tree: () => sessionTree(core.options.store, session_id),
    waiting: () => storedTreeWaiting((id) => sessionState(core, id), storedParent(core.options.store), session_id),
  }
  return handle
}

/**
 * Answers a call of the session's tree and resolves, like Agent.approve, to the session's reply once
 * it ends or parks again (the paused message lists what the tree waits for, each call with its session).
 */
const answered = async (handle: SessionHandle, core: HubCore, answer: Answer, options: ReplyOptions = {}): Promise<Reply> => {
  const stateOf = (id: string) => sessionState(core, id)
  const msg = await handle.reply(answer, options)
  if ('waiting_for' in msg && 'text' in msg) return msg as Reply
  const state = await stateOf(handle.session_id)
  return asReply(msg, state.status === 'paused' && state.reply_id === msg.id ? await storedTreeWaiting(stateOf, storedParent(core.options.store), handle.session_id, state) : [])
}

/** The input event of an answer to a call of the tree of `session_id`, built from the state of the session the call waits in. */
const inputFor = async (core: HubCore, session_id: string, answer: Answer): Promise<AgentInput> => {
  const stateOf = (id: string) => sessionState(core, id)
  const call = whereWaiting(await storedTreeWaiting(stateOf, storedParent(core.options.store), session_id), session_id, refOf(answer))
  return answerInput(await stateOf(call.session_id), answer, call.id)
}

/** The command an answer stands for (built where the session is owned). */
const answerCommand = (answer: Answer): Command => {
  const { id, session_id } = callOf(refOf(answer))
  const where = session_id === undefined ? {} : { session_id }
  if ('approve' in answer) return { op: 'approve', tool_call_id: id, ...where, ...(answer.input !== undefined && { input: answer.input }) }
  if ('deny' in answer) return { op: 'deny', tool_call_id: id, ...where, ...(answer.reason !== undefined && { reason: answer.reason }) }
  return { op: 'submit', tool_call_id: id, ...where, result: answer.result }
}
