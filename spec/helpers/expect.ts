// Small assertions the specs share: a call that must fail with one AgentError code, and whether a
// process is still there.
import * as assert from 'uvu/assert'
import { AgentError } from '../../lib/index.js'

/** Awaits `promise` (or calls it); it must fail with an AgentError of code `expected`, which is returned. */
export const rejectsWithCode = async (promise: Promise<unknown> | (() => unknown), expected: string): Promise<AgentError> => {
  try {
    await (typeof promise === 'function' ? promise() : promise)
  } catch (error) {
    assert.instance(error, AgentError, String(error))
    assert.is((error as AgentError).code, expected, (error as Error).message)
    return error as AgentError
  }
  assert.unreachable(`expected ${expected}`)
  throw new Error('unreachable')
}

/** The process `pid` exists (signal 0 reaches it). */
export const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}
