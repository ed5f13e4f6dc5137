// startQueued: a queued message starts the next reply once the reply in progress has ended (or at
// once when none runs): its USER_MESSAGE takes it out of the queue and startReply starts the reply.
// Listens: REPLY_END, MESSAGE_QUEUED (USER_MESSAGE: the start it emitted is folded). Emits: USER_MESSAGE
// (the queued message, `metadata.queued`). Cancelled by: nothing (it is instant). Concurrency: the
// decision is read from the state (queuedToStart); a start emitted and not folded yet is not emitted
// again by a trigger that lands in between (`starting`), so no message starts twice.
import { EMPTY, mergeMap, of, type Observable } from 'rxjs'
import { createEvent } from '../lib/core/clock.js'
import type { AgentEvent } from '../lib/core/events.js'
import type { StateObservable } from '../lib/core/store.js'
import { queuedToStart } from '../reducers/selectors.js'
import type { AgentDeps } from './deps.js'
import { ofType } from './ofType.js'

export const startQueued = (event$: Observable<AgentEvent>, state$: StateObservable, deps: AgentDeps): Observable<AgentEvent> => {
  let starting: string | null = null
  return event$.pipe(
    ofType('REPLY_END', 'MESSAGE_QUEUED', 'USER_MESSAGE'),
    mergeMap((event) => {
      if (event.type === 'USER_MESSAGE') {
        if (event.msg.id === starting) starting = null
        return EMPTY
      }
      const entry = state$.peek(queuedToStart)
      if (!entry || entry.id === starting) return EMPTY
      starting = entry.id
      return of(createEvent(deps.clock, 'USER_MESSAGE', { msg: entry.msg, metadata: { queued: true } }))
    }),
  )
}
