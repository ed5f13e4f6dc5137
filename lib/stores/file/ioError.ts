// Node's file errors (EISDIR, EACCES, ENOTDIR, ...) as AgentErrors: one line saying which path,
// what is wrong with it and what to do, with the system code kept in the message and in `data`.
import { AgentError } from '../../core/errors.js'

const REASONS: Record<string, string> = {
  EISDIR: 'is a directory, not a file',
  ENOENT: 'does not exist (or its folder does not)',
  ENOTDIR: 'has a part that is not a directory',
  EACCES: 'cannot be accessed (permission denied)',
  EPERM: 'cannot be accessed (operation not permitted)',
  ELOOP: 'has too many symbolic links',
  ENAMETOOLONG: 'is too long a name',
}

/** `error` as an AgentError about `path` (`role` says what the path is for), or `error` itself when it is not a file error. */
export const fileError = (error: unknown, path: string, role = 'the log'): unknown => {
  const code = (error as NodeJS.ErrnoException | null)?.code
  if (typeof code !== 'string' || !(code in REASONS)) return error
  const agentCode = code === 'ENOENT' ? 'NOT_FOUND' : 'LOG_UNAVAILABLE'
  return new AgentError(agentCode, `${path} ${REASONS[code]} (${code}); it cannot be used as ${role}.`, { path, code })
}
