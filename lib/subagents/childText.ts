// How a sub-agent's text reaches its parent's call: the child's reply is followed synchronously,
// and its text deltas become chunks of the call's output (TOOL_RESULT_TEXT_DELTAs in the parent's
// log), throttled: a delta after a quiet spell is handed on at the end of its task (the deltas of
// one task, a network read, make one chunk), and while deltas keep coming at most one chunk per
// `intervalMs` (default 16 ms, one frame) holds everything since the last, so a fast child costs its
// parent a few events, not one per delta, and a slow one is not delayed. Nothing is lost to the
// batching: the child's end, its pause and its failure
// flush first, and a Stop of the parent flushes before its INTERRUPT_REQUESTED (`flushChildText`,
// called by the agent's cancel), so the interrupted call holds every word the child produced (and
// the result of a child that ended just before). The texts of the child's model calls are separated
// by a blank line, as a reply's text is.
import { Observable } from 'rxjs'
import type { AgentEvent, ReplyEndEvent } from '../core/events.js'
import { afterThisTask } from '../core/store.js'
import type { ToolResultObject } from '../agent/tools.js'

/** The flushes of the sub-agent calls running in each parent (keyed weakly, like the tree's links). */
const flushes = new WeakMap<object, Set<() => void>>()

/** Hands the text each running sub-agent call of `parent` holds to that call now (before a Stop closes them). */
export const flushChildText = (parent: object): void => {
  const list = flushes.get(parent)
  if (list) for (const flush of [...list]) flush()
}

/** The default least time between two chunks of a sub-agent's text in its parent's log, in ms. */
export const DEFAULT_TEXT_INTERVAL_MS = 16

/**
 * The output of a call of `parent` that runs a child's reply: the child's text as it comes
 * (`text: false` for a structured output, whose value is the result), in chunks at least
 * `intervalMs` apart (0: one per task), then `finish(end)` (null when the reply parked instead of
 * ending). Subscribing starts the reply; unsubscribing stops it.
 */
export const childOutput$ = (
  parent: object, reply$: () => Observable<AgentEvent>, text: boolean, finish: (end: ReplyEndEvent | null) => ToolResultObject,
  intervalMs = DEFAULT_TEXT_INTERVAL_MS,
): Observable<string | ToolResultObject> =>
  new Observable((subscriber) => {
    let held = ''
    let produced = false
    let between = false
    let due = false
    let timer: ReturnType<typeof setTimeout> | undefined
    let lastChunkAt = -Infinity
    // The call's end, once the child's reply is over: given after the delivery of the child's last
    // event (so the child's REPLY_END reaches every listener before the parent records the result),
    // or at once by a flush (a Stop of the parent then finds the call answered).
    let ending: (() => void) | null = null
    const flush = () => {
      due = false
      if (timer !== undefined) {
        clearTimeout(timer)
        timer = undefined
      }
      if (held) {
        const chunk = held
        held = ''
        lastChunkAt = Date.now()
        subscriber.next(chunk)
      }
      const end = ending
      ending = null
      end?.()
    }
    const flushLater = () => {
      if (due) return
      due = true
      const wait = lastChunkAt + intervalMs - Date.now()
      if (wait > 0) timer = setTimeout(flush, wait)
      else afterThisTask(() => due && flush())
    }
    const endWith = (end: () => void) => {
      ending = end
      queueMicrotask(flush)
    }
    let list = flushes.get(parent)
    if (!list) flushes.set(parent, (list = new Set()))
    list.add(flush)
    let end: ReplyEndEvent | null = null
    const run = reply$().subscribe({
      next: (event) => {
        if (event.type === 'TEXT_BLOCK_DELTA') {
          if (!text || event.delta === '') return
          // Texts of different model calls are separated by a blank line, as textOf separates a reply's.
          if (between && produced) held += '\n\n'
          between = false
          produced = true
          held += event.delta
          flushLater()
        } else if (event.type === 'TOOL_CALL_START' || event.type === 'TOOL_RESULT_START' || event.type === 'HINT_BLOCK' || event.type === 'HINT_ADDED') between = true
        else if (event.type === 'REPLY_END') end = event
      },
      error: (error: unknown) => endWith(() => subscriber.error(error)),
      complete: () => endWith(() => {
        let result: ToolResultObject
        try {
          result = finish(end)
        } catch (error) {
          return subscriber.error(error)
        }
        subscriber.next(result)
        subscriber.complete()
      }),
    })
    return () => {
      if (timer !== undefined) clearTimeout(timer)
      due = false
      list.delete(flush)
      if (!list.size) flushes.delete(parent)
      run.unsubscribe()
    }
  })
