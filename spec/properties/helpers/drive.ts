// Drives one reply (a new message or a resume) the way a caller would: consuming replyStream with
// for-await, subscribing to reply$, awaiting reply(), or dispatch() with events$; and interferes
// after its k-th event by one interrupt form (abort the signal, break out of the loop, unsubscribe,
// agent.interrupt()). Returns what the caller saw and the state at the moment it interfered.
import { isDeepStrictEqual } from 'node:util'
import type { Subscription } from 'rxjs'
import { isOutputEvent, replay, type AgentInput, type AgentState, type Msg, type OutputEvent } from '../../../lib/index.js'
import { avoiding } from './config.js'
import type { World } from './world.js'

export type Via = 'stream' | 'observable' | 'reply' | 'dispatch'
export type Form = 'none' | 'signal' | 'break' | 'unsubscribe' | 'interrupt'
export interface Interference { via: Via; form: Form; at: number }

/** The forms each way of consuming a reply allows. */
export const FORMS: Record<Via, Form[]> = {
  stream: ['none', 'signal', 'break', 'interrupt'],
  observable: ['none', 'signal', 'unsubscribe', 'interrupt'],
  reply: ['none', 'signal', 'interrupt'],
  dispatch: ['none', 'interrupt'],
}

export const describeInterference = ({ via, form, at }: Interference): string =>
  `${via}${form === 'none' ? '' : `, ${form} after event ${at}`}`

export interface Run {
  via: Via
  form: Form
  inputType: string
  /** The log's length when the input was sent. */
  logBefore: number
  reply_id: string | null
  /** What the caller saw: yielded events, or the reply's events on events$ for reply() and dispatch(). */
  yielded: OutputEvent[]
  /** The state when the interference acted; `inDrain`: it acted from inside the store's event delivery. */
  trigger: { state: AgentState; inDrain: boolean } | null
  result?: Msg
  error?: unknown
}

const SETTLE_MS = 2000

const withTimeout = <T>(promise: Promise<T>, what: string): Promise<T> => {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not settle within ${SETTLE_MS} ms`)), SETTLE_MS)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

/** Sends `input` and consumes the reply as `interference` says. Throws what the agent throws for bad input. */
export const drive = async (world: World, input: AgentInput, interference: Interference): Promise<Run> => {
  const { agent } = world
  const { via, form, at } = interference
  const run: Run = {
    via, form, inputType: typeof input === 'string' || 'role' in input ? 'USER_MESSAGE' : input.type, logBefore: agent.log.length,
    reply_id: typeof input === 'string' || 'role' in input ? null : (input as { reply_id: string }).reply_id, yielded: [], trigger: null,
  }
  const controller = new AbortController()
  const snapshot = (inDrain: boolean) => {
    const state = agent.state
    run.trigger = { state, inDrain }
    // Invariant 3 "at every moment": the log folds to the state right where the caller interferes.
    if (!inDrain && !isDeepStrictEqual(replay(agent.log), state)) world.problems.push(`replay(log) differs from the state mid-reply (after event ${at})`)
  }
  /** Interferes from where the event was delivered (maybe inside the store's drain); around a known gap, later or not at all. */
  const interfereInDrain = () => {
    if (form === 'interrupt' && agent.state.status === 'paused' && avoiding('queuedInterrupt')) {
      return // a known gap; interrupting a parked reply is the InterruptParked step's job
    } else if (form === 'interrupt') {
      snapshot(true)
      void agent.interrupt()
    } else if (form === 'signal' && avoiding('reentrantAbort')) {
      queueMicrotask(() => {
        snapshot(false)
        controller.abort()
      })
    } else if (form === 'signal') {
      snapshot(true)
      controller.abort()
    }
  }
  let skipped = 0
  /** Records an event; true when it is the one to interfere after. */
  const see = (event: OutputEvent): boolean => {
    if (run.reply_id === null && event.type === 'REPLY_START') run.reply_id = event.reply_id
    run.yielded.push(event)
    const early = via === 'reply' && form === 'signal' && event.type === 'REPLY_START' && avoiding('earlyAbort')
    if (early) skipped++
    return form !== 'none' && run.yielded.length === at + skipped && !early
  }

  if (via === 'stream') {
    const stream = agent.replyStream(input, { signal: controller.signal })
    await withTimeout((async () => {
      for await (const event of stream) {
        if (!see(event)) continue
        snapshot(false)
        if (form === 'break') break
        if (form === 'signal') controller.abort()
        if (form === 'interrupt') await agent.interrupt()
      }
    })(), 'replyStream')
    return run
  }

  if (via === 'observable') {
    await withTimeout(new Promise<void>((resolve, reject) => {
      let subscription: Subscription | undefined
      let unsubscribeNow = false
      const unsubscribe = () => {
        snapshot(false)
        subscription!.unsubscribe()
        resolve()
      }
      subscription = agent.reply$(input, { signal: controller.signal }).subscribe({
        next: (event) => {
          if (!see(event)) return
          if (form === 'unsubscribe') {
            if (subscription) unsubscribe()
            else unsubscribeNow = true // still inside subscribe(): act as soon as it returns
            return
          }
          interfereInDrain()
        },
        error: reject,
        complete: resolve,
      })
      if (unsubscribeNow) unsubscribe()
    }), 'reply$')
    return run
  }

  // reply() and dispatch(): the caller watches the reply's events on events$.
  let settle!: () => void
  const settled = new Promise<void>((resolve) => (settle = resolve))
  const watch = agent.events$.subscribe((event) => {
    if (!isOutputEvent(event) || (run.reply_id !== null && event.reply_id !== run.reply_id)) return
    if (run.reply_id === null && event.type !== 'REPLY_START') return
    if (see(event)) interfereInDrain()
    queueMicrotask(() => {
      const state = agent.state
      if (state.status === 'idle' || (state.status === 'paused' && state.reply_id === run.reply_id)) settle()
    })
  })
  try {
    if (via === 'reply') {
      try {
        run.result = await withTimeout(agent.reply(input, { signal: controller.signal }), 'reply()')
      } catch (error) {
        if (agent.log.length === run.logBefore) throw error // refused input: nothing happened
        run.error = error
      }
    } else {
      agent.dispatch(input)
      if (agent.log.length > run.logBefore) await withTimeout(settled, 'dispatch()')
    }
  } finally {
    watch.unsubscribe()
  }
  return run
}
