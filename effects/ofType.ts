// ofType: the events of some types. On the store's event stream it subscribes to those types only
// (the store delivers each event to the listeners of its type, so a streamed delta costs the effects
// nothing); on any other Observable of events it filters.
import { filter, type Observable, type OperatorFunction } from 'rxjs'
import type { AgentEvent, EventOf, EventType } from '../lib/core/events.js'
import { eventsOfType, type EventStream } from '../lib/core/store.js'

export const ofType = <T extends EventType>(...types: T[]): OperatorFunction<AgentEvent, EventOf<T>> =>
  (source: Observable<AgentEvent>) => eventsOfType in source
    ? (source as EventStream)[eventsOfType](types) as Observable<EventOf<T>>
    : source.pipe(filter((event): event is EventOf<T> => (types as string[]).includes(event.type)))
