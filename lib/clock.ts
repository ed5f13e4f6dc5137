// Where ids and timestamps come from. Events are stamped when they are created (never in a
// reducer); specs pass a deterministic clock so runs can be compared.
import { nanoid } from 'nanoid'
import type { EventOf, EventType } from './events.js'

export interface Clock {
  id(): string
  now(): string
}

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'

/**
 * The real clock. Ids are a random per-process prefix (nanoid) plus a counter in base 36: unique,
 * URL-safe and about ten times cheaper than a fresh nanoid per event. An id is built from its
 * character codes, so it is one flat string (32 bytes): `${prefix}${counter}` would be a V8 rope
 * over two strings (56 bytes), kept by the log for every event. The ISO time is formatted once per millisecond.
 */
export const createSystemClock = (): Clock => {
  // An id names a sub-agent's session too, so it starts with a letter or digit, as a session id must.
  const raw = nanoid(12)
  const prefix = /^[A-Za-z0-9]/.test(raw) ? raw : `${ALNUM[raw.charCodeAt(1) % ALNUM.length]}${raw.slice(1)}`
  const codes = [...prefix].map((ch) => ch.charCodeAt(0)).concat(DIGIT_0)
  let lastMs = -1
  let lastIso = ''
  return {
    id: () => {
      const id = String.fromCharCode(...codes)
      countUp(codes, prefix.length)
      return id
    },
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

const DIGIT_0 = 48
const DIGIT_9 = 57
const LETTER_A = 97
const LETTER_Z = 122

/** Adds one to the base-36 number written in `codes` from index `from` on (digits, then a-z). */
const countUp = (codes: number[], from: number) => {
  for (let i = codes.length - 1; i >= from; i--) {
    if (codes[i] !== LETTER_Z) {
      codes[i] = codes[i] === DIGIT_9 ? LETTER_A : codes[i] + 1
      return
    }
    codes[i] = DIGIT_0
  }
  codes.splice(from, 0, DIGIT_0 + 1)
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

