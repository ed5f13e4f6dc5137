// startReply: a user message starts a reply.
// Listens: USER_MESSAGE. Emits: REPLY_START (a new reply_id; the structured output a message asks
// for is recorded on the USER_MESSAGE itself, see Agent.prepare; a sub-agent's reply records the
// call that runs it, the message's `metadata.parent`).
// Cancelled by: nothing (it is instant). Concurrency: map (one start per message; the agent
// refuses a message while a reply runs or is paused).
import { map, type Observable } from 'rxjs'
import { createEvent } from '../lib/core/clock.js'
import type { AgentEvent } from '../lib/core/events.js'
import type { StateObservable } from '../lib/core/store.js'
import type { AgentDeps } from './deps.js'
import { ofType } from './ofType.js'

export const startReply = (event$: Observable<AgentEvent>, _state$: StateObservable, deps: AgentDeps): Observable<AgentEvent> =>
  event$.pipe(
    ofType('USER_MESSAGE'),
    map(({ metadata: { parent } }) => createEvent(deps.clock, 'REPLY_START', {
      session_id: deps.session_id, reply_id: deps.clock.id(), name: deps.name, role: 'assistant',
      ...(parent !== undefined && { metadata: { parent } }),
    })),
  )
