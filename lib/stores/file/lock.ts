// The writer's lock: `PATH.lock`, created with O_EXCL and holding {pid, host, time}. A second
// writer (another process, or a second fileLog in this one) gets LOG_LOCKED naming the holder. A
// lock left by a process that is gone (same host, dead pid) is taken over and reported. Readers
// (the CLI, stateAt, fork) take no lock. The same handling serves the lock on the file's identity
// (identity.ts).
import fs from 'node:fs'
import os from 'node:os'
import { AgentError } from '../../core/errors.js'
import { fileError } from './ioError.js'

export interface LockHolder {
  pid: number
  host: string
  time: string
}

export interface Lock {
  readonly path: string
  readonly holder: LockHolder
  release(): void
}

/** A lock file that cannot be read as a holder is stale once it is this old (a crash between create and write). */
const UNREADABLE_STALE_MS = 10_000

/** Locks `logPath` by the lock file `path` (`PATH.lock` beside it unless given). */
export const acquireLock = (logPath: string, onStale: (holder: LockHolder | null) => void, path = `${logPath}.lock`): Lock => {
  const holder: LockHolder = { pid: process.pid, host: os.hostname(), time: new Date().toISOString() }
  for (let attempt = 0; attempt < 3; attempt++) {
    if (create(path, holder)) return { path, holder, release: () => release(path, holder) }
    const text = readText(path)
    if (text === null) continue // released meanwhile: try again
    const current = parseHolder(text)
    if (isStale(path, current)) {
      // Take it over only if it is still the same stale lock (another process may have taken it).
      if (readText(path) === text) {
        removeQuietly(path)
        onStale(current)
      }
      continue
    }
    throw locked(logPath, path, current)
  }
  throw locked(logPath, path, parseHolder(readText(path) ?? ''))
}

/** The lock file `path` exists and its holder is gone (the next writer would take it over). Reads it without blocking. */
export const isStaleLock = async (path: string): Promise<boolean> => {
  let text: string
  try {
    text = await fs.promises.readFile(path, 'utf8')
  } catch {
    return false
  }
  return isStale(path, parseHolder(text))
}

const create = (path: string, holder: LockHolder): boolean => {
  let fd: number
  try {
    fd = fs.openSync(path, 'wx', 0o600)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false
    throw fileError(error, path, 'a lock file')
  }
  try {
    fs.writeSync(fd, `${JSON.stringify(holder)}\n`)
  } finally {
    fs.closeSync(fd)
  }
  return true
}

const release = (path: string, holder: LockHolder): void => {
  const current = parseHolder(readText(path) ?? '')
  if (current && current.pid === holder.pid && current.host === holder.host && current.time === holder.time) removeQuietly(path)
}

const locked = (logPath: string, path: string, holder: LockHolder | null): AgentError =>
  new AgentError('LOG_LOCKED', holder
    ? `${logPath} is open for writing by ${holder.pid === process.pid && holder.host === os.hostname() ? 'this process' : 'process'} ${holder.pid} on ${holder.host} (since ${holder.time}). Close that agent first (await agent.close()), or read the log without writing (agentlog replay, stateAt, fork). If that process is gone, delete ${path}.`
    : `${logPath} is locked by ${path}, whose holder cannot be read. If no process is writing the log, delete ${path}.`,
  { path, holder })

const isStale = (path: string, holder: LockHolder | null): boolean => {
  if (!holder) {
    try {
      return Date.now() - fs.statSync(path).mtimeMs > UNREADABLE_STALE_MS
    } catch {
      return false
    }
  }
  return holder.host === os.hostname() && !isAlive(holder.pid)
}

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

const parseHolder = (text: string): LockHolder | null => {
  try {
    const value = JSON.parse(text) as Partial<LockHolder>
    return Number.isInteger(value.pid) && typeof value.host === 'string' && typeof value.time === 'string' ? (value as LockHolder) : null
  } catch {
    return null
  }
}

const readText = (path: string): string | null => {
  try {
    return fs.readFileSync(path, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw fileError(error, path, 'a lock file')
  }
}

const removeQuietly = (path: string): void => {
  try {
    fs.unlinkSync(path)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  }
}
