// What listing a directory session needs, without folding its log: `ID.jsonl.summary` holds
// {size, last_seq, status, title} as of a byte offset of the log (its writer rewrites it whenever the
// status changes, and before it lets the log go), tagged with the session's creation time, so a
// summary left from a deleted session of the same id is never trusted. A reader takes it and reads only the bytes after that offset:
// it counts lines and parses only those that can change the status. With no summary, or one that
// does not fit the file, the whole log is read that way. Reads are asynchronous and in chunks, so
// listing many sessions never holds the event loop for long. Node only (directoryStore).
import fs from 'node:fs'
import fsp from 'node:fs/promises'
import { AgentError } from '../core/errors.js'
import type { AgentEvent } from '../core/events.js'
import { MARKER } from './file/read.js'
import type { ReplyStatus } from '../../reducers/state.js'
import { statusAfter, titleOf } from './sessions.js'

export interface Summary {
  /** The session's `created_at`: which session of that id the summary is of. */
  session: string
  /** Bytes of the log this summary covers (complete lines). */
  size: number
  last_seq: number
  status: ReplyStatus
  /** The first user message, shortened (sessions.ts titleOf). */
  title?: string
}

export const summaryPath = (logPath: string): string => `${logPath}.summary`

/** Event types that change a session's status (see statusAfter): only their lines are parsed. */
const STATUS_MARKS = ['USER_MESSAGE', 'REPLY_START', 'USER_CONFIRM_RESULT', 'EXTERNAL_EXECUTION_RESULT', 'REQUIRE_USER_CONFIRM', 'REQUIRE_EXTERNAL_EXECUTION', 'REPLY_END']
  .map((type) => `"type":"${type}"`)
const CHUNK = 1 << 20
const EMPTY: { size: number; last_seq: number; status: ReplyStatus; title?: string } = { size: 0, last_seq: 0, status: 'idle' }

const damaged = (logPath: string, seq: number, why: string) =>
  new AgentError('INVALID_LOG', `Event ${seq} of ${logPath} is damaged: ${why}. Check the log with agentlog validate; the session's other events are untouched.`, { path: logPath, seq })

const readSaved = async (path: string, session: string): Promise<Summary | null> => {
  try {
    const value = JSON.parse(await fsp.readFile(path, 'utf8')) as Partial<Summary>
    const { size, last_seq, status, title } = value
    if (value.session === session && Number.isInteger(size) && Number.isInteger(last_seq) && (status === 'idle' || status === 'running' || status === 'paused'))
      return { session, size: size!, last_seq: last_seq!, status, ...(typeof title === 'string' ? { title } : {}) }
  } catch {
    // missing or unreadable: a cache, read the log instead
  }
  return null
}

/** Folds the status over the complete lines of `text` (line `seq` + 1 is event seq). */
const foldLines = (logPath: string, text: string, at: typeof EMPTY & { marker: boolean }): number => {
  let start = 0
  for (let end = text.indexOf('\n'); end >= 0; start = end + 1, end = text.indexOf('\n', start)) {
    const line = text.slice(start, end)
    if (at.marker) {
      if (`${line}\n` !== MARKER) throw damaged(logPath, 0, 'line 1 is not the agentlog version marker')
      at.marker = false
      continue
    }
    at.last_seq++
    if (line[0] !== '{' || line[line.length - 1] !== '}') throw damaged(logPath, at.last_seq, 'the line is not a JSON object')
    if (!STATUS_MARKS.some((mark) => line.includes(mark))) continue
    let event: { type?: unknown }
    try {
      event = JSON.parse(line) as { type?: unknown }
    } catch {
      throw damaged(logPath, at.last_seq, 'the line is not JSON')
    }
    if (typeof event.type === 'string') at.status = statusAfter(at.status, event.type)
    if (at.title === undefined && event.type === 'USER_MESSAGE') at.title = titleOf(event as AgentEvent)
  }
  return start
}

/**
 * The session's summary now (size, last_seq, status) and the log's mtime; INVALID_LOG when a line
 * read is damaged. `read`: the bytes read past the saved summary (worth saving when many).
 */
export const summarize = async (logPath: string, session: string): Promise<Summary & { mtime: Date | null; read: number }> => {
  let stat: fs.Stats
  try {
    stat = await fsp.stat(logPath)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { ...EMPTY, session, mtime: null, read: 0 }
    throw error
  }
  const saved = await readSaved(summaryPath(logPath), session)
  const from = saved && saved.size <= stat.size ? saved : EMPTY
  if (from.size === stat.size) return { ...from, session, mtime: stat.mtime, read: 0 }
  const at = { ...from, marker: from.size === 0 }
  const handle = await fsp.open(logPath, 'r')
  try {
    const buffer = Buffer.alloc(Math.min(CHUNK, stat.size - from.size))
    let carry = ''
    for (let offset = from.size; offset < stat.size;) {
      const { bytesRead } = await handle.read(buffer, 0, Math.min(buffer.length, stat.size - offset), offset)
      if (bytesRead === 0) break
      offset += bytesRead
      const text = carry + buffer.toString('utf8', 0, bytesRead)
      const used = foldLines(logPath, text, at)
      carry = text.slice(used)
      at.size = offset - Buffer.byteLength(carry)
    }
  } finally {
    await handle.close()
  }
  return { session, size: at.size, last_seq: at.last_seq, status: at.status, ...(at.title === undefined ? {} : { title: at.title }), mtime: stat.mtime, read: at.size - from.size }
}

const saved = ({ session, size, last_seq, status, title }: Summary) => JSON.stringify({ session, size, last_seq, status, title })

/** Saves a summary (a cache: a failure to write it is ignored). Sync, for the writer's append path. */
export const saveSummarySync = (logPath: string, summary: Summary): void => {
  const temp = `${summaryPath(logPath)}.${process.pid}.tmp`
  try {
    fs.writeFileSync(temp, saved(summary), { mode: 0o600 })
    fs.renameSync(temp, summaryPath(logPath))
  } catch {
    fs.rmSync(temp, { force: true })
  }
}

/** Saves a summary without blocking (a reader that read far past the saved one). */
export const saveSummary = async (logPath: string, summary: Summary): Promise<void> => {
  const temp = `${summaryPath(logPath)}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`
  try {
    await fsp.writeFile(temp, saved(summary), { mode: 0o600 })
    await fsp.rename(temp, summaryPath(logPath))
  } catch {
    await fsp.rm(temp, { force: true })
  }
}
