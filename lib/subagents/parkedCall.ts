// A sub-agent call parked with its child: the call waits as a `submitted` call of the parent's
// reply, and the child's log decides its answer. When the child's reply ends (however it was
// resumed: from the root, from the child's own session), its outcome becomes the call's
// EXTERNAL_EXECUTION_RESULT, given once the parent is paused. When the parent's reply is
// interrupted (USER_INTERRUPT, a cancel) or the call is answered some other way, the child is
// interrupted first, synchronously, so its log ends before the parent's.
import { filter, Subscription, take } from 'rxjs'
import type { Agent } from '../agent/agent.js'
import type { ReplyEndEvent } from '../core/events.js'
import { submitResultEvent } from '../agent/inputs.js'
import type { ToolResultObject } from '../agent/tools.js'
import { TREE_LINKS } from '../agent/treeLinks.js'
import type { ReplyOptions } from '../agent/replyOptions.js'

export interface ParkedCall {
  reply_id: string
  tool_call_id: string
}

export const watchParkedCall = (parent: Agent, child: Agent, call: ParkedCall, outcome: (end: ReplyEndEvent, text: string) => ToolResultObject, textSoFar = ''): void => {
  const childReply = child.state.reply_id
  const watch = new Subscription()
  let text = textSoFar
  watch.add(child.events$.subscribe((event) => {
    if (!('reply_id' in event) || event.reply_id !== childReply) return
    if (event.type === 'TEXT_BLOCK_DELTA') text += event.delta
    else if (event.type === 'REPLY_END') {
      watch.unsubscribe()
      answerWhenPaused(parent, call, outcome(event, text))
    }
  }))
  watch.add(parent.events$.subscribe((event) => {
    const stopped = (event.type === 'USER_INTERRUPT' || event.type === 'INTERRUPT_REQUESTED') && event.reply_id === call.reply_id
    const answered = event.type === 'EXTERNAL_EXECUTION_RESULT' && event.execution_results.some((r) => r.id === call.tool_call_id)
    if (!stopped && !answered) return
    watch.unsubscribe()
    void child.interrupt()
  }))
}

/** Gives the call its result once the parent's reply is paused (another call of its batch may still run). */
export const answerWhenPaused = (parent: Agent, call: ParkedCall, result: ToolResultObject): void => {
  const { state, ...given } = result
  const answer = { ...given, state: state === 'submitted' ? 'error' as const : state }
  parent.state$.pipe(
    filter((s) => s.reply_id !== call.reply_id || s.status !== 'running'),
    take(1),
  ).subscribe((s) => {
    if (s.reply_id !== call.reply_id || s.status !== 'paused' || !s.waiting_for.some((c) => c.id === call.tool_call_id)) return
    try {
      parent.dispatch(submitResultEvent(s, call.tool_call_id, answer), { [TREE_LINKS]: { trusted: true } } as Pick<ReplyOptions, 'metadata'>)
    } catch {
      // The parent stopped on its log (its consumers get that failure); nothing to answer.
    }
  })
}
