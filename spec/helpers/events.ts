// Hand-written events for reducer specs: `ev(type, fields)` with a deterministic envelope.
import type { EventOf, EventType } from '../../lib/index.js'

let n = 0
type Fields<T extends EventType> = Omit<EventOf<T>, 'id' | 'created_at' | 'metadata' | 'type'> & { metadata?: Record<string, unknown> }

export const ev = <T extends EventType>(type: T, fields: Fields<T>): EventOf<T> =>
  ({ id: `ev-${++n}`, created_at: `2026-01-01T00:00:${String(n % 60).padStart(2, '0')}.000Z`, metadata: {}, type, ...fields }) as unknown as EventOf<T>
