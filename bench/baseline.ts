// The yardstick for the streaming figures: a minimal Redux-plus-RxJS store with no log. A reducer
// appends each delta to the current text block with object spreads, a BehaviorSubject holds the
// state, a Subject publishes the events, and the consumer reads them through an async iterator fed
// by the same fake in-process model (an async generator of chunks).
import { BehaviorSubject, Subject } from 'rxjs'
import type { ModelChunk } from '../lib/index.js'

interface Block { type: 'text'; id: string; text: string }
interface State { context: unknown[]; reply: { id: string; content: Block[] } }
interface DeltaAction { type: 'TEXT_BLOCK_DELTA'; block_id: string; delta: string }

const reducer = (state: State, action: DeltaAction): State => {
  const content = state.reply.content
  const last = content[content.length - 1]
  return { ...state, reply: { ...state.reply, content: [...content.slice(0, -1), { ...last, text: last.text + action.delta }] } }
}

/** An async iterator over a Subject: a queue, and a promise for the consumer that waits. */
const eachValue = <T>(source: Subject<T>): AsyncIterableIterator<T> => {
  const queue: T[] = []
  let waiting: ((result: IteratorResult<T>) => void) | null = null
  let done = false
  source.subscribe({
    next(value) {
      if (waiting) {
        const resolve = waiting
        waiting = null
        resolve({ value, done: false })
      } else queue.push(value)
    },
    complete() {
      done = true
      waiting?.({ value: undefined, done: true })
    },
  })
  return {
    next: () => queue.length ? Promise.resolve({ value: queue.shift()!, done: false })
      : done ? Promise.resolve({ value: undefined, done: true })
      : new Promise((resolve) => (waiting = resolve)),
    [Symbol.asyncIterator]() {
      return this
    },
  }
}

/** Microseconds per delta, model chunk to the consumer's for await. */
export const reduxRxjsBaseline = async (deltas: ModelChunk[]): Promise<number> => {
  const state$ = new BehaviorSubject<State>({ context: [], reply: { id: 'r', content: [{ type: 'text', id: 'b', text: '' }] } })
  const event$ = new Subject<DeltaAction>()
  const dispatch = (action: DeltaAction) => {
    state$.next(reducer(state$.value, action))
    event$.next(action)
  }
  async function* model() {
    yield* deltas
  }
  const events = eachValue(event$)
  const start = performance.now()
  void (async () => {
    for await (const chunk of model()) if (chunk.type === 'text') dispatch({ type: 'TEXT_BLOCK_DELTA', block_id: 'b', delta: chunk.delta })
    event$.complete()
  })()
  let seen = 0
  for await (const _ of events) seen++
  if (seen !== deltas.length) throw new Error(`expected ${deltas.length} deltas, saw ${seen}`)
  return ((performance.now() - start) / deltas.length) * 1000
}
