// Reading a JSONL log fast: the file is read in large chunks, each complete line is decoded
// straight from the chunk and goes through JSON.parse and then `accept` (the caller's cheap check). A last line without its newline, or a last line that is not JSON, is a torn write:
// returned, never accepted. Any other bad line is an INVALID_LOG error naming its line number.
import fs from 'node:fs'
import type { Hash } from 'node:crypto'
import { AgentError } from '../../core/errors.js'

export interface Torn {
  /** The torn line's number (1-based; line 1 is the version marker). */
  line: number
  /** Byte offset where the torn line starts: the log is cut there. */
  offset: number
  bytes: number
  reason: 'no newline' | 'not JSON'
}

export interface ScanOptions {
  /** Byte offset to start at (a line start) and the number of the line found there. */
  start: number
  firstLine: number
  /** Stop before this byte offset (default: the end of the file). */
  end?: number
  /** Fed the bytes of every complete line, in order. */
  hash?: Hash
  /** Checks one parsed line; returns a problem to report as INVALID_LOG, or null. May throw. */
  accept: (value: unknown, line: number) => string | null
}

export interface ScanResult {
  /** Byte offset after the last complete, accepted line. */
  end: number
  /** The number the next line would have. */
  nextLine: number
  torn: Torn | null
}

const CHUNK = 8 << 20
const NEWLINE = 10

export const invalidLine = (path: string, line: number, problem: string): AgentError =>
  new AgentError('INVALID_LOG', `${path}:${line}: ${problem}. The log was not changed; repair or remove that line (or restore the file from a backup) and open it again.`, { path, line })

export const scan = (fd: number, path: string, options: ScanOptions): ScanResult => {
  const { start, accept, hash } = options
  const limit = options.end ?? fs.fstatSync(fd).size
  let buf: Buffer<ArrayBuffer> = Buffer.allocUnsafe(Math.min(CHUNK, Math.max(limit - start, 1)))
  let pos = start
  let filled = 0
  let line = options.firstLine
  let pending: { line: number; offset: number; message: string } | null = null

  while (pos + filled < limit) {
    if (filled === buf.length) buf = grow(buf, filled)
    const n = fs.readSync(fd, buf, filled, Math.min(buf.length - filled, limit - pos - filled), pos + filled)
    if (n === 0) break
    filled += n
    const last = buf.lastIndexOf(NEWLINE, filled - 1)
    if (last < 0) continue
    hash?.update(buf.subarray(0, last + 1))
    for (let a = 0; a <= last; line++) {
      const b = buf.indexOf(NEWLINE, a)
      if (pending) throw invalidLine(path, pending.line, `not valid JSON (${pending.message})`)
      let value: unknown
      try {
        value = JSON.parse(buf.toString('utf8', a, b))
      } catch (error) {
        pending = { line, offset: pos + a, message: (error as Error).message }
        a = b + 1
        continue
      }
      const problem = accept(value, line)
      if (problem !== null) throw invalidLine(path, line, problem)
      a = b + 1
    }
    buf.copy(buf, 0, last + 1, filled)
    pos += last + 1
    filled -= last + 1
  }

  if (pending) {
    if (filled > 0) throw invalidLine(path, pending.line, `not valid JSON (${pending.message})`)
    return { end: pending.offset, nextLine: pending.line, torn: { line: pending.line, offset: pending.offset, bytes: pos - pending.offset, reason: 'not JSON' } }
  }
  return { end: pos, nextLine: line, torn: filled > 0 ? { line, offset: pos, bytes: filled, reason: 'no newline' } : null }
}

const grow = (buf: Buffer, filled: number): Buffer<ArrayBuffer> => {
  const bigger = Buffer.allocUnsafe(buf.length * 2)
  buf.copy(bigger, 0, 0, filled)
  return bigger
}

/** Feeds `hash` the bytes [from, to) of the file. */
export const hashRange = (fd: number, hash: Hash, from: number, to: number): void => {
  const buf = Buffer.allocUnsafe(Math.min(CHUNK, Math.max(to - from, 1)))
  for (let pos = from; pos < to;) {
    const n = fs.readSync(fd, buf, 0, Math.min(buf.length, to - pos), pos)
    if (n === 0) break
    hash.update(buf.subarray(0, n))
    pos += n
  }
}
