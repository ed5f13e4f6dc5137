// Checks for the hardening specs: the agent's own log passes its own checks (checkLog, strict
// replay) and folds back to the state it shows; and a watch over uncaught exceptions and unhandled
// rejections while a misbehaving model, tool or store runs.
import { isDeepStrictEqual } from 'node:util'
import * as assert from 'uvu/assert'
import { checkLog, replay, type Agent, type AgentEvent, type AgentState } from '../../lib/index.js'

/** The log passes checkLog and strict replay, and replay(log) deep-equals `state` (after a JSON round trip). */
export const assertLogHolds = (log: readonly AgentEvent[], state: AgentState) => {
  const copy = JSON.parse(JSON.stringify(log)) as AgentEvent[]
  assert.equal(checkLog(copy).violations, [], 'checkLog finds no violation')
  const replayed = replay(copy, undefined, { strict: true })
  assert.ok(isDeepStrictEqual(replayed, state), 'replay(log) deep-equals the state')
}

export const assertAgentHolds = (agent: Agent) => assertLogHolds(agent.log, agent.state)

/** Records every uncaught exception and unhandled rejection until `stop()`. */
export const watchCrashes = () => {
  const crashes: unknown[] = []
  const record = (error: unknown) => void crashes.push(error)
  process.on('uncaughtException', record)
  process.on('unhandledRejection', record)
  return {
    crashes,
    stop: async () => {
      await new Promise((resolve) => setTimeout(resolve, 10))
      process.off('uncaughtException', record)
      process.off('unhandledRejection', record)
      return crashes
    },
  }
}

/** Rejects when `promise` has not settled after `ms` (a hang is a failure, not a stuck run). */
export const within = <T>(promise: Promise<T>, ms = 2000, what = 'the reply'): Promise<T> =>
  Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what} did not settle within ${ms} ms`)), ms).unref())])
