// A reply whose session another process owns: the input is routed to the owner, and the reply's
// events are read back by following the session from the input's position, until its REPLY_END or
// its pause (a REQUIRE_* after which the store says the session is paused at that very event).
// Leaving early, or the signal, routes an interrupt and reads on to the closing REPLY_END.
import { DEFAULT_INTERRUPT_TEXT, type AgentInput } from '../agent.js'
import { AbortError, ModelError } from '../errors.js'
import { isOutputEvent, type AgentEvent, type OutputEvent, type ReplyEndEvent } from '../events.js'
import type { Msg } from '../messages.js'
import { inputMetadata } from '../options.js'
import { endedReplyMsg, type ReplyOptions } from '../replyRun.js'
import { replay } from '../../reducers/root.js'
import { selectEndedReply } from '../../reducers/selectors.js'
import type { HubCore } from './hub.js'
import { followTree } from './tree.js'

const replyOf = (caused: AgentEvent[]): string | null => {
  for (const event of caused) if (event.type === 'REPLY_START' || event.type === 'USER_CONFIRM_RESULT' || event.type === 'EXTERNAL_EXECUTION_RESULT') return event.reply_id
  return null
}

/** The events of a session from `fromSeq` on, as an async iterator (the follow's events are queued). */
const followQueue = (core: HubCore, session_id: string, fromSeq: number, descendants = false) => {
  const queue: AgentEvent[] = []
  let failure: unknown = null
  let wake: (() => void) | null = null
  const { store } = core.options
  const subscription = (descendants ? followTree(store, session_id, { fromSeq }) : store.follow(session_id, { fromSeq })).subscribe({
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
    const caused = await core.run(session_id, { op: 'input', input, externalTools: options.externalTools, metadata: inputMetadata(options) })
    reply_id = replyOf(caused)
    if (!reply_id || caused.length === 0) return
    const follow = followQueue(core, session_id, (caused[0].metadata.seq as number) - 1, options.descendants)
    let stopping: Promise<unknown> | null = null
    const stop = () => (stopping ??= core.run(session_id, { op: 'interrupt' }).catch(() => undefined))
    options.signal?.addEventListener('abort', stop)
    let finished = false
    try {
      for (;;) {
        const event = await follow.next()
        // With `descendants`, a sub-agent's events (tagged with their session) come as they are.
        if (descendants && typeof event.metadata.session_id === 'string' && isOutputEvent(event)) {
          yield event
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
    const message = reply_id && (selectEndedReply(state, reply_id) ?? (state.reply_msg?.id === reply_id ? state.reply_msg : undefined))
    if (!message) throw new Error('The reply produced no message.')
    return ended ? endedReplyMsg(ended, message, message.name, DEFAULT_INTERRUPT_TEXT)! : message
  }

  return { events, result }
}
