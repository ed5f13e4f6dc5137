// Opening a log file for writing: every line is checked and the events are folded into the state
// as they stream by (from the snapshot file, when one is trusted), so none is kept in memory; a
// torn last line is cut and reported; an empty file gets its version marker; a file that is not a
// log is refused untouched. Also the one way
// bytes are appended (all of them, or none).
import crypto, { type Hash } from 'node:crypto'
import fs from 'node:fs'
import { rootReducer } from '../../../reducers/root.js'
import { initialState } from '../../../reducers/state.js'
import type { LockHolder } from './lock.js'
import { acceptEvents, checkIsLog, MARKER } from './read.js'
import { hashRange, scan, type Torn } from './scan.js'
import { messageOf } from '../../core/errors.js'
import { loadSnapshot, syncDir, type LoadedSnapshot, type Snapshot } from './snapshot.js'

export type Durability = 'always' | 'reply' | 'none'

/** What opening or running the log repaired or ignored; reported through `onRecover` and `recovered`. */
export type Recovery =
  | ({ kind: 'torn-tail' } & Torn)
  | { kind: 'stale-lock'; holder: LockHolder | null }
  | { kind: 'snapshot-ignored'; reason: string }
  | { kind: 'snapshot-failed'; reason: string }

/**
 * Reads (or starts) the log open on `fd`, checking every line and folding the events into the
 * state as they stream by (from the snapshot, when one is trusted), so none is kept in memory.
 */
export const openLogFile = (fd: number, path: string, durability: Durability, snapshots: boolean, report: (info: Recovery) => void) => {
  let size = fs.fstatSync(fd).size
  let hash: Hash | null = snapshots ? crypto.createHash('sha256') : null
  let from: Snapshot = { seq: 0, offset: 0, state: initialState() }
  let saved = 0
  if (size > 0) {
    checkIsLog(fd, path, size)
    const loaded = snapshots ? loadSnapshotSafely(path, fd, size) : null
    if (loaded && 'ignored' in loaded) report({ kind: 'snapshot-ignored', reason: loaded.ignored })
    if (loaded && 'snapshot' in loaded) {
      from = loaded.snapshot
      hash = loaded.hash
      saved = from.seq
    }
    let state = from.state
    const { end, torn, nextLine } = scan(fd, path, {
      start: from.offset, firstLine: from.seq + (from.offset ? 2 : 1), hash: hash ?? undefined,
      accept: acceptEvents(path, from.seq + 1, (event) => void (state = rootReducer(state, event))),
    })
    if (torn) {
      fs.ftruncateSync(fd, end)
      if (durability !== 'none') fs.fsyncSync(fd)
      report({ kind: 'torn-tail', ...torn })
      if (hash && torn.reason === 'not JSON') hashRange(fd, (hash = crypto.createHash('sha256')), 0, end)
    }
    size = end
    from = { seq: Math.max(nextLine - 2, 0), offset: end, state }
  }
  if (size === 0) {
    writeAll(fd, Buffer.from(MARKER), 0)
    size = Buffer.byteLength(MARKER)
    hash?.update(MARKER)
    from = { seq: 0, offset: size, state: initialState() }
    if (durability !== 'none') {
      fs.fsyncSync(fd)
      syncDir(path)
    }
  }
  return { size, hash, folded: from, saved }
}

/** A snapshot is a cache: whatever goes wrong while loading it, the log opens from the full fold. */
const loadSnapshotSafely = (path: string, fd: number, size: number): LoadedSnapshot => {
  try {
    return loadSnapshot(path, fd, size)
  } catch (error) {
    return { ignored: `unreadable (${messageOf(error)})` }
  }
}

/** Writes all of `bytes`; on failure cuts the file back to `size`, so no partial line stays. */
export const writeAll = (fd: number, bytes: Buffer, size: number): void => {
  try {
    for (let done = 0; done < bytes.length;) done += fs.writeSync(fd, bytes, done, bytes.length - done)
  } catch (error) {
    try {
      fs.ftruncateSync(fd, size)
    } catch {
      // The write error is the one to report; the torn line is cut at the next open.
    }
    throw error
  }
}
