// interruptReply: closes an interrupted reply with the pure interrupt function.
// Listens: INTERRUPT_REQUESTED (a cancel while running), USER_INTERRUPT (while paused).
// Emits: the events of `closeReply(state)`: open blocks' ends, MODEL_CALL_END, interrupted
// results, QUEUE_RETURNED (a person's Stop hands the waiting messages back unless `metadata.keep_queue`), REPLY_END(interrupted). Cancelled by: nothing. Concurrency: mergeMap of a synchronous
// list, so the closing events are in the log before the dispatch that asked for them returns.
import { from, mergeMap, type Observable } from 'rxjs'
import type { AgentEvent } from '../lib/core/events.js'
import type { StateObservable } from '../lib/core/store.js'
import { closeReply } from '../reducers/interrupt.js'
import type { AgentDeps } from './deps.js'
import { ofType } from './ofType.js'

export const interruptReply = (event$: Observable<AgentEvent>, state$: StateObservable, deps: AgentDeps): Observable<AgentEvent> =>
  event$.pipe(
    ofType('INTERRUPT_REQUESTED', 'USER_INTERRUPT'),
    mergeMap((event) => (event.reply_id === state$.value.reply_id ? from(closeReply(state$.value, deps.clock, { reason: 'interrupted', returnQueue: event.metadata.keep_queue !== true })) : [])),
  )
