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
  const raw = nanoid(PREFIX_LENGTH)
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

const PREFIX_LENGTH = 12
/** An id of createSystemClock's shape: a nanoid prefix starting with a letter or digit, then a base-36 counter without leading zeros. */
const SYSTEM_ID = /^[A-Za-z0-9][\w-]{11}(?:0|[1-9a-z][0-9a-z]*)$/

/**
 * The order in which one system clock (createSystemClock) made ids `a` and `b`: negative when `a`
 * came first, positive when `b` did, 0 for the same id; undefined when both do not come from one
 * such clock (another prefix: another process, or a custom clock's ids), and the caller falls
 * back to another order (the events' times). The rule: the same 12-character prefix, then the
 * counters compare as numbers in base 36: a longer one is later, one of the same length compares as
 * a string (digits before letters). Exact within a process, at no cost per id.
 */
export const idOrder = (a: string, b: string): number | undefined => {
  if (!SYSTEM_ID.test(a) || !SYSTEM_ID.test(b) || a.slice(0, PREFIX_LENGTH) !== b.slice(0, PREFIX_LENGTH)) return undefined
  if (a.length !== b.length) return a.length - b.length
  return a < b ? -1 : a > b ? 1 : 0
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

