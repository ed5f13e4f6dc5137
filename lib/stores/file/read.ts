// The JSONL log format: line 1 is the version marker `{"agentlog":1}`, then one event per line
// (event `seq` on line seq + 1, its `metadata.seq`, when present, equal to its position).
// `readLogFile` reads a log without locking or changing it (for the CLI and time travel); the
// writer (lib/stores/file/index.ts) shares the line checks below.
import fs from 'node:fs'
import { AgentError } from '../../core/errors.js'
import type { AgentEvent } from '../../core/events.js'
import { checkEvent } from './check.js'
import { scan, type Torn } from './scan.js'

export const FORMAT_VERSION = 1
export const MARKER = `{"agentlog":${FORMAT_VERSION}}\n`

/** Checks line 1; throws LOG_VERSION for a log written by a newer agentlog. */
export const checkMarker = (path: string, value: unknown): string | null => {
  const version = typeof value === 'object' && value !== null ? (value as { agentlog?: unknown }).agentlog : undefined
  if (!Number.isInteger(version) || (version as number) < 1)
    return `line 1 is not the agentlog version marker ${MARKER.trim()} (is this an agentlog log?)`
  if ((version as number) > FORMAT_VERSION)
    throw new AgentError('LOG_VERSION', `${path} was written by a newer agentlog (log format ${version as number}; this version reads format ${FORMAT_VERSION}). Upgrade agentlog to open it; the log was not changed.`, { path, version })
  return null
}

const MARKER_START = '{"agentlog":'

/**
 * Refuses a file that is not an agentlog log before anything reads past, or cuts, its first line:
 * it must start with the version marker (a log cut while its marker was written holds a prefix of
 * it). A settings file or a note given as a log path is left byte for byte unchanged.
 */
export const checkIsLog = (fd: number, path: string, size: number): void => {
  const head = Buffer.alloc(Math.min(size, MARKER.length))
  fs.readSync(fd, head, 0, head.length, 0)
  const text = head.toString('latin1')
  if (text.startsWith(MARKER_START) || (size < MARKER.length && MARKER.startsWith(text))) return
  throw new AgentError('INVALID_LOG', `${path}:1: line 1 is not the agentlog version marker ${MARKER.trim()}, so this is not an agentlog log. The file was not changed; give the path of a log (or of a file that does not exist yet).`, { path, line: 1 })
}

/** The `accept` of a scan: checks the marker on line 1 and every event, and hands each event on. */
export const acceptEvents = (path: string, firstSeq: number, onEvent: (event: AgentEvent) => void) => {
  let seq = firstSeq
  return (value: unknown, line: number): string | null => {
    if (line === 1) return checkMarker(path, value)
    const problem = checkEvent(value)
    if (problem !== null) return `not a valid event: ${problem}`
    const event = value as AgentEvent
    const stamped = event.metadata.seq
    if (stamped !== undefined && stamped !== seq)
      return `${event.type} is stamped seq ${JSON.stringify(stamped)} but is event ${seq} of the log: lines were dropped, duplicated or reordered`
    onEvent(event)
    seq++
    return null
  }
}

/** Reads events [1, end of line `offset`) of an open log into an array. */
export const readEvents = (fd: number, path: string, end: number): AgentEvent[] => {
  const events: AgentEvent[] = []
  scan(fd, path, { start: 0, firstLine: 1, end, accept: acceptEvents(path, 1, (e) => events.push(e)) })
  return events
}

export interface LogFile {
  events: AgentEvent[]
  /** A torn last line (a crash mid-write): left in the file, not read. */
  torn: Torn | null
  /** Bytes up to the end of the last complete line. */
  size: number
}

/** Reads a log file without locking or changing it. */
export const readLogFile = (path: string): LogFile => {
  let fd: number
  try {
    fd = fs.openSync(path, 'r')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new AgentError('INVALID_LOG', `${path} does not exist.`, { path })
    throw error
  }
  try {
    const size = fs.fstatSync(fd).size
    if (size > 0) checkIsLog(fd, path, size)
    const events: AgentEvent[] = []
    const { end, torn } = scan(fd, path, { start: 0, firstLine: 1, accept: acceptEvents(path, 1, (e) => events.push(e)) })
    if (end === 0 && !torn) throw new AgentError('INVALID_LOG', `${path} is empty: not an agentlog log (line 1 would be ${MARKER.trim()}).`, { path })
    return { events, torn, size: end }
  } finally {
    fs.closeSync(fd)
  }
}
