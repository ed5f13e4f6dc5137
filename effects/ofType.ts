// `ofType`, the filter every effect starts with: narrows the event stream to some event types.
import { filter, type OperatorFunction } from 'rxjs'
import type { AgentEvent, EventOf, EventType } from '../lib/events.js'

export const ofType = <T extends EventType>(...types: T[]): OperatorFunction<AgentEvent, EventOf<T>> =>
  filter((event): event is EventOf<T> => (types as string[]).includes(event.type))
