// Which file a log path names, so the writer's lock follows the file and not the spelling of its
// path: the lock file sits beside the real path (symlinks resolved), and a process refuses a second
// writer on the same device and inode (a hard link, or a path through a bind mount).
import fs from 'node:fs'
import nodePath from 'node:path'
import { AgentError } from '../errors.js'

/** `path` with symlinks resolved (the directory's, when the file does not exist yet). */
export const realLogPath = (path: string): string => {
  try {
    return fs.realpathSync(path)
  } catch {
    try {
      return nodePath.join(fs.realpathSync(nodePath.dirname(path)), nodePath.basename(path))
    } catch {
      return nodePath.resolve(path)
    }
  }
}

/** The files this process writes as logs: `dev:ino` -> the path they were opened by. */
const writing = new Map<string, string>()

/** Claims the file open on `fd` for this writer; LOG_LOCKED when this process writes it already under another name. */
export const claimFile = (fd: number, path: string): (() => void) => {
  const { dev, ino } = fs.fstatSync(fd)
  const key = `${dev}:${ino}`
  const holder = writing.get(key)
  if (holder !== undefined)
    throw new AgentError('LOG_LOCKED', `${path} is the same file as ${holder}, which this process has open for writing already. Close that agent first (await agent.close()).`, { path, holder })
  writing.set(key, path)
  return () => void writing.delete(key)
}
