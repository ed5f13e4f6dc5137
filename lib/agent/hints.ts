// Runtime hints (AgentScope's `InjectionConfig(inject_runtime_state=True)`, off by default here): a
// hint block with the current time, added to the reply before a model call when the context holds
// no time yet, or the last one is older than the interval. The agent reads its clock once, in the
// effect that adds the hint, and records the hint as a HINT_BLOCK event: replay never reads a clock.
import { checkKnownKeys } from '../core/strictOptions.js'
import { AgentError, describe } from '../core/errors.js'
import type { Msg } from '../core/messages.js'

export interface RuntimeHintOptions {
  /** The IANA time zone of the time given (default 'UTC'), e.g. 'Europe/Paris'. */
  timeZone?: string
  /** A new time is given when the last one is older than this (hours, default 0.5). */
  intervalHours?: number
}

export interface RuntimeHintSettings {
  timeZone: string
  intervalMs: number
}

/** The `source` of the hint blocks, by which the agent finds its earlier ones (AgentScope's label). */
export const RUNTIME_HINT_SOURCE = '{"label": "System", "sublabel": "Runtime State"}'

/** Checked settings from createAgent's `runtimeHints` (true: the defaults), or null when off. */
export const runtimeHintSettings = (option: unknown): RuntimeHintSettings | null => {
  if (option === undefined || option === false) return null
  if (option !== true && (typeof option !== 'object' || option === null || Array.isArray(option)))
    throw new AgentError('INVALID_OPTION', `createAgent: runtimeHints must be true or { timeZone?, intervalHours? }; received ${describe(option)}.`)
  checkKnownKeys('createAgent: runtimeHints', option, ['timeZone', 'intervalHours'])
  const { timeZone = 'UTC', intervalHours = 0.5 } = option === true ? {} : option as RuntimeHintOptions
  try {
    new Intl.DateTimeFormat('en', { timeZone })
  } catch {
    throw new AgentError('INVALID_OPTION', `createAgent: runtimeHints.timeZone must be an IANA time zone such as 'UTC' or 'Europe/Paris'; received ${describe(timeZone)}.`)
  }
  if (typeof intervalHours !== 'number' || !(intervalHours >= 0))
    throw new AgentError('INVALID_OPTION', `createAgent: runtimeHints.intervalHours must be a number of hours of at least 0; received ${describe(intervalHours)}.`)
  return { timeZone, intervalMs: intervalHours * 3_600_000 }
}

/** The hint text for the instant `at` (ms since the epoch), or null when the latest hint in `messages` is recent enough. */
export const runtimeHint = (messages: readonly Msg[], at: number, settings: RuntimeHintSettings): string | null => {
  const last = lastHintTime(messages)
  if (last !== null && at - last >= 0 && at - last <= settings.intervalMs) return null
  return `<system-reminder>The runtime state now (it supersedes any earlier one):\n<current-time>${wallTime(at, settings.timeZone)}</current-time>\n<timezone>${settings.timeZone}</timezone>\n<utc>${new Date(at).toISOString()}</utc>\n</system-reminder>`
}

/** The instant of the newest runtime hint (its `<utc>`), searching from the end; null when there is none. */
const lastHintTime = (messages: readonly Msg[]): number | null => {
  for (let m = messages.length - 1; m >= 0; m--) {
    const { content, role } = messages[m]
    if (role !== 'assistant') continue
    for (let b = content.length - 1; b >= 0; b--) {
      const block = content[b]
      if (block.type !== 'hint' || block.source !== RUNTIME_HINT_SOURCE) continue
      const text = typeof block.hint === 'string' ? block.hint : block.hint.map((part) => (part.type === 'text' ? part.text : '')).join('')
      const utc = /<utc>(.*?)<\/utc>/.exec(text)
      const time = utc ? Date.parse(utc[1]) : NaN
      if (!Number.isNaN(time)) return time
    }
  }
  return null
}

/** `at` as the wall-clock time of `timeZone`, 'YYYY-MM-DDTHH:mm:ss'. */
const wallTime = (at: number, timeZone: string): string => {
  const parts = Object.fromEntries(new Intl.DateTimeFormat('en-CA', {
    timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit',
  }).formatToParts(new Date(at)).map((p) => [p.type, p.value]))
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}`
}
