// fileLog: the LogStore of a JSONL file (Node only). A version marker, then one event per line,
// appended synchronously with O_APPEND: the bytes reach the OS (and the disk, with durability
// 'always') before the store reduces and publishes the event. One writer at a time (PATH.lock).
// Opening checks and folds the file without keeping its events (`events` reads them on demand) and
// hands the fold to the agent through `snapshot()`; with `snapshots`, PATH.snapshot lets an open
// read only the events after it. A torn last line is cut and reported; other damage is refused.
// The lock follows the real file (symlinks resolved; one writer per device and inode, in a process and across processes).
import { checkKnownKeys, optionKeys } from '../../core/strictOptions.js'
import fs from 'node:fs'
import { Observable, Subject } from 'rxjs'
import { replay } from '../../../reducers/root.js'
import type { AgentState } from '../../../reducers/state.js'
import { AgentError, describe } from '../../core/errors.js'
import type { AgentEvent } from '../../core/events.js'
import { checkEvent } from './check.js'
import { claimFile, identityLockPath, realLogPath } from './identity.js'
import { fileError } from './ioError.js'
import { acquireLock, type Lock, type LockHolder } from './lock.js'
import { openLogFile, writeAll, type Durability, type Recovery } from './open.js'
import { readEvents } from './read.js'
import { writeSnapshot } from './snapshot.js'
import type { LogStore } from '../../core/log.js'

export type { Durability, Recovery }

export interface FileLogOptions {
  /**
   * When appended events are fsync'd: 'always' (each append, before the event is published),
   * 'reply' (default: at each REPLY_END and each pause), 'none' (left to the OS). In every mode
   * an event is written to the OS before it is published, so it survives the process crashing.
   */
  durability?: Durability
  /** Keep a snapshot beside the log: at close, and at a reply end or pause once `every` (default 10,000) events have passed. */
  snapshots?: boolean | { every?: number }
  onRecover?: (info: Recovery) => void
}

export interface FileLog extends LogStore {
  readonly path: string
  readonly durability: Durability
  /** Everything opening (or running) the log repaired or ignored. */
  readonly recovered: readonly Recovery[]
  /**
   * The state after event `seq`: folded while the log was read on open (from its snapshot file,
   * when one was trusted) and moved on at each snapshot. A restore folds only the events after it.
   */
  snapshot(): { seq: number; state: AgentState }
  /** The position of the snapshot file last trusted on open or written (0: none). */
  readonly snapshotSeq: number
}

/** The events after which durability 'reply' fsyncs: a reply's end and a pause. */
const SYNC_POINTS: ReadonlySet<string> = new Set(['REPLY_END', 'REQUIRE_USER_CONFIRM', 'REQUIRE_EXTERNAL_EXECUTION'])

export const fileLog = (path: string, options: FileLogOptions = {}): FileLog => {
  const { durability = 'reply', snapshots = false, onRecover } = checkOptions(path, options)
  const every = typeof snapshots === 'object' ? snapshots.every ?? 10_000 : 10_000
  const recovered: Recovery[] = []
  const report = (info: Recovery) => {
    recovered.push(info)
    onRecover?.(info)
  }
  // A crashed writer leaves both its locks: its taking over is reported once.
  const staleHolders = new Set<string>()
  const onStale = (holder: LockHolder | null) => {
    const key = JSON.stringify(holder)
    if (staleHolders.has(key)) return
    staleHolders.add(key)
    report({ kind: 'stale-lock', holder })
  }
  // The lock follows the file: beside its real path, then by device and inode (in this process, and
  // across processes by a lock file named after them).
  const lock = acquireLock(realLogPath(path), onStale)
  let fd: number | undefined
  let unclaim: (() => void) | undefined
  let fileLock: Lock | undefined
  let opened: ReturnType<typeof openLogFile>
  try {
    fd = fs.openSync(path, 'a+', 0o600)
    unclaim = claimFile(fd, path)
    fileLock = acquireLock(path, onStale, identityLockPath(fd))
    opened = openLogFile(fd, path, durability, !!snapshots, report)
  } catch (error) {
    fileLock?.release()
    unclaim?.()
    if (fd !== undefined) fs.closeSync(fd)
    lock.release()
    throw fileError(error, path)
  }
  const identityLock = fileLock
  const logFd = fd
  const releaseFile = unclaim!
  let { size, hash, folded, saved } = opened
  // Events 1..base stay on disk (bytes up to baseEnd) until someone reads them; `tail` holds the rest.
  let base = folded.seq
  let baseEnd = folded.offset
  let tail: AgentEvent[] = []
  const appended = new Subject<AgentEvent>()
  let closed = false

  const identity = fs.fstatSync(logFd)
  const all = (): AgentEvent[] => {
    if (base > 0) {
      const prefix = closed ? readClosed(path, identity, baseEnd) : readEvents(logFd, path, baseEnd)
      for (const event of tail) prefix.push(event)
      tail = prefix
      base = baseEnd = 0
    }
    return tail
  }
  const read = (fromSeq = 0): AgentEvent[] => (fromSeq >= base ? tail.slice(fromSeq - base) : all().slice(fromSeq))

  const takeSnapshot = () => {
    if (!hash) return
    folded = { seq: base + tail.length, offset: size, state: replay(read(folded.seq), folded.state) }
    try {
      writeSnapshot(path, folded, hash.copy().digest('hex'))
      saved = folded.seq
    } catch (error) {
      report({ kind: 'snapshot-failed', reason: (error as Error).message })
    }
  }

  return {
    path,
    durability,
    recovered,
    get events() {
      return all()
    },
    append(batch, { expectedSeq }) {
      if (closed) throw new AgentError('CLOSED', `The log ${path} is closed; open it again (fileLog) and create a new agent to go on.`)
      const count = base + tail.length
      if (expectedSeq !== count)
        throw new AgentError('LOG_CONFLICT', `Expected to append after event ${expectedSeq}, but ${path} holds ${count}: another writer appended first. Reload the log and retry.`)
      if (fs.fstatSync(logFd).size !== size)
        throw new AgentError('LOG_CONFLICT', `${path} changed on disk since it was opened (${size} bytes expected): another process wrote it without the lock. Reopen the log.`)
      let text = ''
      for (const event of batch) {
        const problem = checkEvent(event)
        if (problem !== null) throw new AgentError('INVALID_EVENT', `Refusing to write an invalid event to ${path}: ${problem}; received ${describe(event)}.`)
        text += `${JSON.stringify(event)}\n`
      }
      const bytes = Buffer.from(text)
      writeAll(logFd, bytes, size)
      const syncPoint = batch.some((e) => SYNC_POINTS.has(e.type))
      if (durability === 'always' || (durability === 'reply' && syncPoint)) fs.fdatasyncSync(logFd)
      size += bytes.length
      hash?.update(bytes)
      for (const event of batch) {
        tail.push(event)
        appended.next(event)
      }
      if (hash && syncPoint && base + tail.length - saved >= every) takeSnapshot()
    },
    read: ({ fromSeq = 0 } = {}) => read(fromSeq),
    follow: ({ fromSeq = 0 } = {}) => new Observable<AgentEvent>((subscriber) => {
      for (const event of read(fromSeq)) subscriber.next(event)
      return appended.subscribe(subscriber)
    }),
    snapshot: () => ({ seq: folded.seq, state: folded.state }),
    get snapshotSeq() {
      return saved
    },
    async close() {
      if (closed) return
      closed = true
      try {
        if (hash && base + tail.length > saved) takeSnapshot()
        fs.fsyncSync(logFd)
      } finally {
        fs.closeSync(logFd)
        releaseFile()
        identityLock.release()
        lock.release()
        appended.complete()
      }
    },
  }
}

/**
 * The first events of a closed log, read again by path: its descriptor is gone (and its number may
 * belong to another file by now). Refused with CLOSED when the path no longer names the same file.
 */
const readClosed = (path: string, identity: fs.Stats, end: number): AgentEvent[] => {
  let fd: number
  try {
    fd = fs.openSync(path, 'r')
  } catch {
    throw new AgentError('CLOSED', `The log ${path} is closed and can no longer be read; open it again (fileLog or readLogFile) to see its events.`)
  }
  try {
    const now = fs.fstatSync(fd)
    if (now.dev !== identity.dev || now.ino !== identity.ino || now.size < end)
      throw new AgentError('CLOSED', `The log ${path} is closed and the path now names another file; this agent's events cannot be read from it.`)
    return readEvents(fd, path, end)
  } finally {
    fs.closeSync(fd)
  }
}

const FILE_LOG_OPTION_KEYS = optionKeys<FileLogOptions>({ durability: true, snapshots: true, onRecover: true })

const checkOptions = (path: unknown, options: FileLogOptions): FileLogOptions => {
  if (typeof path !== 'string' || path === '') throw new AgentError('INVALID_OPTION', `fileLog: path must be a file path; received ${describe(path)}.`)
  if (typeof options !== 'object' || options === null) throw new AgentError('INVALID_OPTION', `fileLog: options must be an object such as { durability: 'reply' }; received ${describe(options)}.`)
  checkKnownKeys('fileLog', options, FILE_LOG_OPTION_KEYS)
  const { durability, snapshots } = options
  if (typeof snapshots === 'object' && snapshots !== null) checkKnownKeys('fileLog snapshots', snapshots, ['every'])
  if (durability !== undefined && !['always', 'reply', 'none'].includes(durability))
    throw new AgentError('INVALID_OPTION', `fileLog: durability must be 'always', 'reply' or 'none'; received ${describe(durability)}.`)
  const every = typeof snapshots === 'object' && snapshots !== null ? snapshots.every : undefined
  if (snapshots !== undefined && typeof snapshots !== 'boolean' && !(typeof snapshots === 'object' && snapshots !== null && (every === undefined || (Number.isInteger(every) && every >= 1))))
    throw new AgentError('INVALID_OPTION', `fileLog: snapshots must be true, false or { every: N } with N a whole number of at least 1; received ${describe(snapshots)}.`)
  return options
}
