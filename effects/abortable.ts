// The shape of every unit of real work in the effects: an Observable around an async function
// that receives an AbortSignal. Unsubscribing aborts the signal (only if the work is unfinished:
// an abort after the end would cost a DOMException for nothing); a failure is turned into events
// by `onFailure`, never an error escaping the effect (unless `onFailure` itself throws: then the
// Observable errors, and the store ends the reply).
import { Observable, type Subscriber } from 'rxjs'

// One reason for every abort: `abort()` without one builds a DOMException (with its stack) per
// signal, which is most of the cost of stopping eight tools at once.
const interrupted = new DOMException('The reply was interrupted.', 'AbortError')

export const abortable = <T>(
  work: (signal: AbortSignal, subscriber: Subscriber<T>) => Promise<void>,
  onFailure: (error: unknown, subscriber: Subscriber<T>) => void,
): Observable<T> =>
  new Observable<T>((subscriber) => {
    const controller = new AbortController()
    let finished = false
    work(controller.signal, subscriber).then(
      () => {
        finished = true
        subscriber.complete()
      },
      (error: unknown) => {
        finished = true
        if (subscriber.closed) return
        try {
          onFailure(error, subscriber)
        } catch (failed) {
          // A failure handler that fails is a bug: the store reports it and ends the reply.
          return subscriber.error(failed)
        }
        subscriber.complete()
      },
    )
    return () => {
      if (!finished) controller.abort(interrupted)
    }
  })
