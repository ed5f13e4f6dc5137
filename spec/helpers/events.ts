// Hand-written events for reducer specs: `ev(type, fields)` with a deterministic envelope.
import type { EventOf, EventType } from '../../lib/index.js'

let n = 0
export const ev = <T extends EventType>(type: T, fields: Omit<EventOf<T>, 'id' | 'created_at' | 'metadata' | 'type'>): EventOf<T> =>
  ({ id: `ev-${++n}`, created_at: `2026-01-01T00:00:${String(n % 60).padStart(2, '0')}.000Z`, metadata: {}, type, ...fields }) as unknown as EventOf<T>
