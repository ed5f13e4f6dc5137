// Where ids and timestamps come from. Events are stamped when they are created (never in a
// reducer); specs pass a deterministic clock so runs can be compared.
import { nanoid } from 'nanoid'
import type { EventOf, EventType } from './events.js'

export interface Clock {
  id(): string
  now(): string
}

/**
 * The real clock. Ids are a random per-process prefix (nanoid) plus a counter: unique, URL-safe and
 * about ten times cheaper than a fresh nanoid per event. The ISO time is formatted once per millisecond.
 */
export const createSystemClock = (): Clock => {
  const prefix = nanoid(12)
  let counter = 0
  let lastMs = -1
  let lastIso = ''
  return {
    id: () => `${prefix}${(counter++).toString(36)}`,
    now: () => {
      const ms = Date.now()
      if (ms !== lastMs) {
        lastMs = ms
        lastIso = new Date(ms).toISOString()
      }
      return lastIso
    },
  }
}

export const systemClock: Clock = createSystemClock()

/** A deterministic clock: ids `prefix-1`, `prefix-2`, ... and a time that advances 1 ms per call. */
export const counterClock = (prefix = 'id', start = Date.UTC(2026, 0, 1)): Clock => {
  let n = 0
  let t = start
  return { id: () => `${prefix}-${++n}`, now: () => new Date(t++).toISOString() }
}

type Fields<T extends EventType> = Omit<EventOf<T>, 'id' | 'created_at' | 'metadata' | 'type'> & { metadata?: Record<string, unknown> }

/** Creates an event of `type`, stamped by `clock`. */
export const createEvent = <T extends EventType>(clock: Clock, type: T, fields: Fields<T>): EventOf<T> =>
  ({ id: clock.id(), created_at: clock.now(), metadata: {}, type, ...fields }) as unknown as EventOf<T>

