// AG-UI checks for specs: a stream of AG-UI events must pass @ag-ui/client's verifyEvents and every
// event must parse with @ag-ui/core's own schema (our types are declared by hand in lib/server/agui).
import { verifyEvents, type BaseEvent } from '@ag-ui/client'
import { EventSchema } from '@ag-ui/core/schemas'
import { from } from 'rxjs'
import * as assert from 'uvu/assert'
import type { AgUiEvent } from '../../../lib/server/agui/types.js'

/** Throws with the checker's message when the stream breaks the protocol. */
export const verify = async (events: readonly AgUiEvent[]): Promise<void> => {
  for (const event of events) {
    const parsed = EventSchema.safeParse(event)
    assert.ok(parsed.success, `${event.type} fails the @ag-ui/core schema: ${parsed.success ? '' : parsed.error.message}`)
    for (const [key, value] of Object.entries(event)) assert.ok(value !== null && value !== undefined, `${event.type}.${key} must be omitted, not null`)
  }
  // @ag-ui/client bundles its own rxjs: hand it our Observable and subscribe to its result.
  const checked = verifyEvents(false)(from(events as unknown as BaseEvent[]) as never)
  await new Promise<void>((resolve, reject) => checked.subscribe({ error: reject, complete: resolve }))
}

export const aguiTypes = (events: readonly AgUiEvent[]) => events.map((e) => e.type)
