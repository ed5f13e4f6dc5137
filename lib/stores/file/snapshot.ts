// Snapshots beside the log, in `PATH.snapshot`: line 1 a header {agentlog_snapshot, seq, offset,
// prefix_sha256, state_sha256}, line 2 the state after event `seq` with its fold version
// (reducers/snapshot.ts). A cache, never the truth: it is used only when the state matches its own
// checksum and was made by this fold, and the log's first `offset` bytes still hash to
// `prefix_sha256`; otherwise it is ignored (the caller reports why) and the next snapshot replaces it.
import crypto, { type Hash } from 'node:crypto'
import fs from 'node:fs'
import nodePath from 'node:path'
import { snapshotState, snapshotText } from '../../../reducers/snapshot.js'
import type { AgentState } from '../../../reducers/state.js'
import { hashRange } from './scan.js'

export const SNAPSHOT_VERSION = 1

export interface Snapshot {
  seq: number
  /** Bytes of the log up to the end of event `seq`. */
  offset: number
  state: AgentState
}

export type LoadedSnapshot = { snapshot: Snapshot; hash: Hash } | { ignored: string } | null

export const snapshotPath = (logPath: string): string => `${logPath}.snapshot`

const sha256 = (text: string) => crypto.createHash('sha256').update(text).digest('hex')

/** Loads and checks the snapshot of the log open on `fd` (`size` bytes); null when there is none. */
export const loadSnapshot = (logPath: string, fd: number, size: number): LoadedSnapshot => {
  let text: string
  try {
    text = fs.readFileSync(snapshotPath(logPath), 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null
    return { ignored: `unreadable (${(error as Error).message})` }
  }
  const nl = text.indexOf('\n')
  let header: Record<string, unknown>
  try {
    header = JSON.parse(text.slice(0, nl < 0 ? text.length : nl)) as Record<string, unknown>
  } catch {
    return { ignored: 'damaged: its header is not JSON' }
  }
  if (typeof header !== 'object' || header === null || Array.isArray(header)) return { ignored: 'damaged: its header is not an object' }
  if (header.agentlog_snapshot !== SNAPSHOT_VERSION) return { ignored: `unknown snapshot format ${JSON.stringify(header.agentlog_snapshot)}` }
  const { seq, offset, prefix_sha256, state_sha256 } = header
  if (!Number.isInteger(seq) || !Number.isInteger(offset) || typeof prefix_sha256 !== 'string' || typeof state_sha256 !== 'string')
    return { ignored: 'damaged: its header lacks seq, offset or checksums' }
  const stateText = text.slice(nl + 1, text.endsWith('\n') ? -1 : undefined)
  if (nl < 0 || sha256(stateText) !== state_sha256) return { ignored: 'damaged: the state does not match its checksum' }
  const resumed = snapshotState(stateText, seq as number)
  if ('ignored' in resumed) return resumed
  if ((offset as number) > size)
    return { ignored: `stale: it was made at event ${seq as number} (byte ${offset as number}) but the log has only ${size} bytes` }
  const hash = crypto.createHash('sha256')
  hashRange(fd, hash, 0, offset as number)
  if (hash.copy().digest('hex') !== prefix_sha256)
    return { ignored: `stale: the log's first ${offset as number} bytes are not the ones it was made from` }
  return { snapshot: { seq: seq as number, offset: offset as number, state: resumed.state }, hash }
}

/** Writes a snapshot atomically (a temporary file, fsync, rename). */
export const writeSnapshot = (logPath: string, snapshot: Snapshot, prefixSha256: string): void => {
  const target = snapshotPath(logPath)
  const stateText = snapshotText(snapshot.state)
  const header = JSON.stringify({
    agentlog_snapshot: SNAPSHOT_VERSION, seq: snapshot.seq, offset: snapshot.offset,
    prefix_sha256: prefixSha256, state_sha256: sha256(stateText),
  })
  const tmp = `${target}.${process.pid}.tmp`
  const fd = fs.openSync(tmp, 'w', 0o600)
  try {
    fs.writeSync(fd, `${header}\n`)
    fs.writeSync(fd, `${stateText}\n`)
    fs.fsyncSync(fd)
  } finally {
    fs.closeSync(fd)
  }
  fs.renameSync(tmp, target)
  syncDir(target)
}

/** Makes a file's creation or rename durable: fsync of its directory (best effort: not every OS can). */
export const syncDir = (file: string): void => {
  let fd: number | undefined
  try {
    fd = fs.openSync(nodePath.dirname(nodePath.resolve(file)), 'r')
    fs.fsyncSync(fd)
  } catch {
    // Windows and some file systems cannot fsync a directory; the data itself is synced.
  } finally {
    if (fd !== undefined) fs.closeSync(fd)
  }
}
