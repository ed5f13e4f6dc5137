// A reply whose session another process owns: the input is routed to the owner, and the reply's
// events are read back by following the session from the input's position, until its REPLY_END or
// its pause (a REQUIRE_* after which the store says the session is paused at that very event).
// Leaving early, or the signal, routes an interrupt and reads on to the closing REPLY_END.
// An answer to a sub-agent's call (a confirmation or result for a descendant's reply, which the owner
// gives where the call waits) follows the session's own reply, as a local agent's does: with the
// tree's events, until that reply ends or pauses, or the tree waits again with nothing running.
import { DEFAULT_INTERRUPT_TEXT, type AgentInput } from '../agent/agent.js'
import { AbortError, ModelError } from '../core/errors.js'
import { isOutputEvent, type AgentEvent, type OutputEvent, type ReplyEndEvent } from '../core/events.js'
import type { Msg } from '../core/messages.js'
import { inputMetadata } from '../agent/options.js'
import { endedReplyMsg } from '../agent/replyEnd.js'
import type { ReplyOptions } from '../agent/replyOptions.js'
import { replay } from '../../reducers/root.js'
import type { AgentState } from '../../reducers/state.js'
import { selectEndedReply } from '../../reducers/selectors.js'
import type { HubCore } from './core.js'
import { sessionState } from './state.js'
import { followTree, type OpenSubagent } from './followTree.js'
import { replyChildren, replyTreeStates } from './waiting.js'
import { storedParent } from './linkedChild.js'

const replyOf = (caused: AgentEvent[]): string | null => {
  for (const event of caused) if (event.type === 'REPLY_START' || event.type === 'USER_CONFIRM_RESULT' || event.type === 'EXTERNAL_EXECUTION_RESULT') return event.reply_id
  return null
}

/**
 * The events of a session from `fromSeq` on, as an async iterator (the follow's events are queued);
 * with `open` (not null), its sub-agents' too (those `open` names, and those that start).
 */
const followQueue = (core: HubCore, session_id: string, fromSeq: number, open: readonly OpenSubagent[] | null) => {
  const queue: AgentEvent[] = []
  let failure: unknown = null
  let wake: (() => void) | null = null
  const { store } = core.options
  const subscription = (open ? followTree(store, session_id, { fromSeq, open }) : store.follow(session_id, { fromSeq })).subscribe({
    next: (event) => { queue.push(event); wake?.() },
    error: (error) => { failure = error ?? new Error('follow failed'); wake?.() },
  })
  const next = async (): Promise<AgentEvent> => {
    for (;;) {
      if (queue.length) return queue.shift()!
      if (failure) throw failure
      await new Promise<void>((resolve) => (wake = resolve))
      wake = null
    }
  }
  return { next, pending: () => queue.length, stop: () => subscription.unsubscribe() }
}

export const remoteReply = (core: HubCore, session_id: string, input: AgentInput | string, options: ReplyOptions) => {
  let end: ReplyEndEvent | null = null
  let reply_id: string | null = null

  const descendants = options.descendants === true
  async function* events(): AsyncGenerator<OutputEvent> {
    // An answer to a call of a sub-agent's reply: the owner gives it where the call waits, so the
    // events it causes are in the sub-agent's log, and the session's own reply goes on from where it is.
    const answered = answeredReply(input)
    const root = answered === null ? null : await sessionState(core, session_id)
    const below = root !== null && root.status === 'paused' && root.reply_id !== answered
    const tree = below ? await replyTreeStates((id) => sessionState(core, id), storedParent(core.options.store), session_id, root) : null
    const caused = await core.run(session_id, { op: 'input', input, externalTools: options.externalTools, metadata: inputMetadata(options) })
    reply_id = below ? root.reply_id : replyOf(caused)
    if (!reply_id || (!below && caused.length === 0)) return
    const follow = below
      // The tree's sub-agents whose replies have not ended, each from where it stood before the answer.
      ? followQueue(core, session_id, root.seq, openCalls(tree!))
      : followQueue(core, session_id, (caused[0].metadata.seq as number) - 1, descendants ? [] : null)
    let stopping: Promise<unknown> | null = null
    const stop = () => (stopping ??= core.run(session_id, { op: 'interrupt' }).catch(() => undefined))
    options.signal?.addEventListener('abort', stop)
    let finished = false
    try {
      for (;;) {
        const event = await follow.next()
        // With `descendants`, a sub-agent's events (tagged with their session) come as they are.
        if (typeof event.metadata.session_id === 'string') {
          if (descendants && isOutputEvent(event)) yield event
          if (below && isPause(event) && follow.pending() === 0 && (await treeParked(core, session_id))) break
          continue
        }
        if (!isOutputEvent(event) || event.reply_id !== reply_id) continue
        yield event
        if (event.type === 'REPLY_END') {
          end = event
          break
        }
        if ((event.type === 'REQUIRE_USER_CONFIRM' || event.type === 'REQUIRE_EXTERNAL_EXECUTION') && follow.pending() === 0) {
          const info = await core.options.store.info(session_id)
          if (info.status === 'paused' && info.last_seq === event.metadata.seq) break
        }
      }
      finished = true
    } finally {
      options.signal?.removeEventListener('abort', stop)
      // Left early: interrupt the reply and wait until its end is committed.
      if (!finished) await stop()
      follow.stop()
      await stopping
    }
  }

  const result = async (): Promise<Msg> => {
    for await (const _ of events()) void _
    const ended = end as ReplyEndEvent | null
    if (ended?.finished_reason === 'error') throw new ModelError(ended.error ?? { type: 'unknown', message: 'The model call failed.' })
    if (ended?.finished_reason === 'interrupted' || ended?.finished_reason === 'exceed_max_iters') {
      if (ended.finished_reason === 'interrupted' && options.rejectOnInterrupt) throw new AbortError(ended.reply_id)
      const agentOptions = await core.options.agent(session_id)
      return endedReplyMsg(ended, undefined, agentOptions.name, agentOptions.interruptText ?? DEFAULT_INTERRUPT_TEXT)!
    }
    const store = core.options.store
    const state = store.state ? await store.state(session_id) : replay(await store.read(session_id))
    const message = reply_id && (selectEndedReply(state, reply_id) ?? (state.reply_msg && state.reply_id === reply_id ? state.reply_msg : undefined))
    if (!message) throw new Error('The reply produced no message.')
    return ended ? endedReplyMsg(ended, message, message.name, DEFAULT_INTERRUPT_TEXT)! : message
  }

  return { events, result }
}

/** The sub-agents of a tree whose replies have not ended, with their calls, each to follow from where it stands. */
const openCalls = (tree: readonly { session_id: string; state: AgentState }[]): OpenSubagent[] => {
  const states = new Map(tree.map(({ session_id, state }) => [session_id, state]))
  return tree.flatMap(({ session_id: parent, state }) => [...replyChildren(state)].flatMap(([tool_call_id, child]) => {
    const at = states.get(child)
    return at && at.status !== 'idle' ? [{ session_id: child, parent, tool_call_id, fromSeq: at.seq }] : []
  }))
}

const isPause = (event: AgentEvent): boolean => event.type === 'REQUIRE_USER_CONFIRM' || event.type === 'REQUIRE_EXTERNAL_EXECUTION'

/** The reply whose waiting calls an input answers (a confirmation, an external result), or null. */
const answeredReply = (input: AgentInput | string): string | null =>
  typeof input === 'object' && 'type' in input && (input.type === 'USER_CONFIRM_RESULT' || input.type === 'EXTERNAL_EXECUTION_RESULT') ? input.reply_id : null

/** Nothing in the session's tree runs, and it waits for an answer again. */
const treeParked = async (core: HubCore, session_id: string): Promise<boolean> => {
  const states = await replyTreeStates((id) => sessionState(core, id), storedParent(core.options.store), session_id)
  return states.every(({ state }) => state.status !== 'running') && states.some(({ state }) => state.status === 'paused')
}
