// Which file a log path names, so the writer's lock follows the file and not the spelling of its
// path: the lock file sits beside the real path (symlinks resolved), a process refuses a second
// writer on the same device and inode (a hard link, or a path through a bind mount), and a second
// lock file keyed on device and inode, in a per-user folder, refuses one in another process.
import fs from 'node:fs'
import os from 'node:os'
import nodePath from 'node:path'
import { AgentError } from '../../core/errors.js'
import { fileError } from './ioError.js'

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

/** The lock file for the file open on `fd` whatever its name: `TMPDIR/agentlog-locks-UID/DEV-INO.lock`. */
export const identityLockPath = (fd: number): string => {
  const { dev, ino } = fs.fstatSync(fd)
  const uid = process.getuid?.() ?? os.userInfo().username
  const dir = nodePath.join(os.tmpdir(), `agentlog-locks-${uid}`)
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
    const stat = fs.lstatSync(dir)
    if (!stat.isDirectory() || (process.getuid && stat.uid !== process.getuid()))
      throw new AgentError('LOG_UNAVAILABLE', `${dir} is not a folder of this user's; it cannot hold the writers' locks. Remove it and open the log again.`, { path: dir })
  } catch (error) {
    throw fileError(error, dir, "the folder of the writers' locks")
  }
  return nodePath.join(dir, `${dev}-${ino}.lock`)
}
