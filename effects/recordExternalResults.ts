// recordExternalResults: turns the results a caller executed outside the agent into the reply's
// result events (the TOOL_RESULT_START was yielded before the reply parked).
// Listens: EXTERNAL_EXECUTION_RESULT (admitted by the guards: every id is a submitted call).
// Emits: TOOL_RESULT_TEXT_DELTA / TOOL_RESULT_DATA_DELTA per output block, TOOL_RESULT_END with
// the block's state and metadata. Cancelled by: nothing (synchronous). Concurrency: mergeMap.
import { from, mergeMap, type Observable } from 'rxjs'
import { createEvent } from '../lib/core/clock.js'
import type { AgentEvent } from '../lib/core/events.js'
import type { StateObservable } from '../lib/core/store.js'
import type { AgentDeps } from './deps.js'
import { ofType } from './ofType.js'
import { outputEvents } from './runTool.js'

export const recordExternalResults = (event$: Observable<AgentEvent>, _state$: StateObservable, deps: AgentDeps): Observable<AgentEvent> =>
  event$.pipe(
    ofType('EXTERNAL_EXECUTION_RESULT'),
    mergeMap(({ reply_id, execution_results }) => from(execution_results.flatMap((result) => [
      ...outputEvents(deps.clock, reply_id, result.id, result.output),
      createEvent(deps.clock, 'TOOL_RESULT_END', {
        reply_id, tool_call_id: result.id, state: result.state === 'running' ? 'success' : result.state, metadata: { ...result.metadata },
      }),
    ]))),
  )
