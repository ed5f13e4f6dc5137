// The cap on the sub-agents an agent tool runs at once for one parent agent (AgentToolOptions.
// maxConcurrentSubagents): a call that would pass it runs nothing and gets an `error` result the
// model can read (LIMIT_REACHED). A call counts from the moment its output is subscribed (the tool
// starts) until that output ends, fails or is unsubscribed (a Stop); a parked sub-agent is not running.
import { isObservable, Observable, of } from 'rxjs'
import type { ToolOutput, ToolResultObject } from '../agent/tools.js'

export const DEFAULT_MAX_CONCURRENT_SUBAGENTS = 16

/** The result of a call the cap refused. */
export const tooManySubagents = (toolName: string, max: number): ToolResultObject => {
  const message = `LIMIT_REACHED: ${max} sub-agents of "${toolName}" are already running for this agent (maxConcurrentSubagents); this call started none. Wait for their results, then delegate what is left.`
  return { output: `Error: ${message}`, state: 'error', metadata: { error: { code: 'LIMIT_REACHED', message } } }
}

/** Runs `run` (a sub-agent call's output) within the cap of `running` (counts per parent agent). */
export const withinCap = (running: WeakMap<object, number>, parent: object, max: number, toolName: string, run: () => ToolOutput): ToolOutput =>
  new Observable<string | ToolResultObject>((subscriber) => {
    const count = running.get(parent) ?? 0
    if (count >= max) {
      subscriber.next(tooManySubagents(toolName, max))
      subscriber.complete()
      return
    }
    running.set(parent, count + 1)
    let released = false
    const release = () => {
      if (released) return
      released = true
      const left = (running.get(parent) ?? 1) - 1
      if (left > 0) running.set(parent, left)
      else running.delete(parent)
    }
    let output: ToolOutput
    try {
      output = run()
    } catch (error) {
      release()
      subscriber.error(error)
      return
    }
    if (!isObservable(output) && typeof output === 'object' && Symbol.asyncIterator in output) {
      release()
      subscriber.error(new Error('a sub-agent call returned an async iterable; expected an Observable or a result'))
      return
    }
    const inner = (isObservable(output) ? output : of(output as string | ToolResultObject)).subscribe({
      next: (value) => subscriber.next(value),
      error: (error: unknown) => {
        release()
        subscriber.error(error)
      },
      complete: () => {
        release()
        subscriber.complete()
      },
    })
    return () => {
      inner.unsubscribe()
      release()
    }
  })
