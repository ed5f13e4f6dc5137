// runTool: executes one local tool call as an Observable of its result events (the caller has
// emitted its TOOL_RESULT_START). Emits: TOOL_RESULT_TEXT_DELTA / DATA_DELTA as output arrives (strings, result objects, async iterables of text, or Observables of text recorded synchronously), then TOOL_RESULT_END
// (or REQUIRE_EXTERNAL_EXECUTION for a result in state 'submitted': the call then waits like an external one). A thrown
// value (any value) or an output the log cannot record becomes an `error` result the model can act on. Cancelled by: unsubscribing (the reply's
// cancel$, via advanceReply), which aborts the tool's AbortSignal at once and drops anything late.
import { isObservable, type Observable, type Subscription } from 'rxjs'
import type { Clock } from '../lib/core/clock.js'
import { createEvent } from '../lib/core/clock.js'
import type { AgentEvent } from '../lib/core/events.js'
import type { ToolCallBlock, ToolResultBlock } from '../lib/core/messages.js'
import type { Tool, ToolContext, ToolOutput, ToolResultObject } from '../lib/agent/tools.js'
import { z } from 'zod'
import { describe, messageOf } from '../lib/core/errors.js'
import { jsonProblem } from '../lib/core/jsonValue.js'
import { ToolResultBlockSchema } from '../lib/core/messages.js'
import { abortable } from './abortable.js'

/** What a tool's context holds besides its signal and call id. */
export type CallContext = Required<Omit<ToolContext, 'signal' | 'tool_call_id'>>

export const runTool = (clock: Clock, reply_id: string, call: ToolCallBlock, tool: Tool, input: unknown, context: CallContext, confirm: (() => Promise<void> | null) | null = null): Observable<AgentEvent> => {
  const tool_call_id = call.id
  const end = (state: ToolResultObject['state'] = 'success', metadata: Record<string, unknown> = {}) => state === 'submitted'
    ? createEvent(clock, 'REQUIRE_EXTERNAL_EXECUTION', { reply_id, tool_calls: [{ ...call, state: 'submitted' }], metadata: { ...metadata } })
    : createEvent(clock, 'TOOL_RESULT_END', { reply_id, tool_call_id, state, metadata: { ...metadata } })
  return abortable<AgentEvent>(async (signal, subscriber) => {
    // The log's owner proven first: a tool never runs in a process another has taken the session from (the log's failure ends the reply).
    const proof = confirm?.()
    if (proof) {
      if (!(await proof.then(() => true, () => false)) || subscriber.closed) return
    }
    const output: ToolOutput = await tool.execute!(input as never, { ...context, signal, tool_call_id })
    if (subscriber.closed) return
    /** Records one chunk of a streamed output; true once the call is over (a result object ends it). */
    const chunk = (value: unknown): boolean => {
      if (typeof value === 'string') {
        subscriber.next(createEvent(clock, 'TOOL_RESULT_TEXT_DELTA', { reply_id, tool_call_id, delta: value }))
        return false
      }
      // A result object ends the stream: its output joins what was streamed, its state ends the call.
      if (typeof value !== 'object' || value === null) throw new Error(`its output stream yielded ${describe(value)}; yield strings, and at most a result object last`)
      const result = checkResult(value)
      for (const event of [...outputEvents(clock, reply_id, tool_call_id, result.output), end(result.state, result.metadata)]) subscriber.next(event)
      return true
    }
    if (isObservable(output)) return emitted(output, signal, chunk, () => subscriber.closed || void subscriber.next(end('success')))
    if (isAsyncIterable(output)) {
      for await (const value of output) {
        if (subscriber.closed || chunk(value)) return
      }
      if (!subscriber.closed) subscriber.next(end('success'))
      return
    }
    const result: ToolResultObject = typeof output === 'string' ? { output } : checkResult(output)
    const events = outputEvents(clock, reply_id, tool_call_id, result.output)
    events.push(end(result.state, result.metadata))
    for (const event of events) subscriber.next(event)
  }, (error, subscriber) => {
    const message = messageOf(error)
    subscriber.next(createEvent(clock, 'TOOL_RESULT_TEXT_DELTA', { reply_id, tool_call_id, delta: `Error: the tool "${call.name}" failed: ${message}` }))
    subscriber.next(end('error'))
  })
}

/** The delta events that record a tool's output (a string, or text and data blocks). */
export const outputEvents = (clock: Clock, reply_id: string, tool_call_id: string, output: ToolResultBlock['output']): AgentEvent[] => {
  if (typeof output === 'string') return output === '' ? [] : [createEvent(clock, 'TOOL_RESULT_TEXT_DELTA', { reply_id, tool_call_id, delta: output })]
  return output.map((block) => block.type === 'text'
    ? createEvent(clock, 'TOOL_RESULT_TEXT_DELTA', { reply_id, tool_call_id, delta: block.text })
    : createEvent(clock, 'TOOL_RESULT_DATA_DELTA', {
        reply_id, tool_call_id, block_id: block.id, media_type: block.source.media_type,
        data: block.source.type === 'base64' ? block.source.data : null,
        url: block.source.type === 'url' ? block.source.url : null,
      }))
}

/** A result object the log can record, or a thrown Error saying what is wrong with it (it becomes the call's `error` result). */
const checkResult = (value: unknown): ToolResultObject => {
  const expected = 'return a string, an async iterable of strings, or { output: string | (text | data blocks)[], state?: "success" | "error" | "interrupted" | "submitted", metadata?: a JSON object }'
  if (typeof value !== 'object' || value === null) throw new Error(`it returned ${describe(value)}; ${expected}`)
  const parsed = ToolResultObjectSchema.safeParse(value)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    throw new Error(`it returned an invalid result at ${issue.path.join('.') || '(result)'}: ${issue.message}; ${expected}`)
  }
  const problem = parsed.data.metadata === undefined ? null : jsonProblem(parsed.data.metadata)
  if (problem !== null) throw new Error(`its result's metadata cannot be recorded: ${problem.replace('(value)', 'metadata')}`)
  return parsed.data as ToolResultObject
}

const ToolResultObjectSchema = z.object({
  output: ToolResultBlockSchema.shape.output,
  state: z.enum(['success', 'error', 'interrupted', 'submitted']).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
})

/**
 * Records an Observable output synchronously, chunk by chunk, until a result object, its end, or the
 * abort (which unsubscribes it). Resolves when the call is over; rejects with what it failed with.
 */
const emitted = (output: Observable<unknown>, signal: AbortSignal, chunk: (value: unknown) => boolean, complete: () => void): Promise<void> =>
  new Promise((resolve, reject) => {
    let over = false
    let subscription: Subscription | undefined
    const settle = (error?: unknown) => {
      if (over) return
      over = true
      signal.removeEventListener('abort', stop)
      subscription?.unsubscribe()
      if (error === undefined) resolve()
      else reject(error)
    }
    const stop = () => settle()
    signal.addEventListener('abort', stop)
    subscription = output.subscribe({
      next: (value) => {
        if (over) return
        try {
          if (chunk(value)) settle()
        } catch (error) {
          settle(error ?? new Error('its output stream failed'))
        }
      },
      error: (error: unknown) => settle(error ?? new Error('its output stream failed')),
      complete: () => {
        if (over) return
        complete()
        settle()
      },
    })
    if (over) subscription.unsubscribe()
  })

const isAsyncIterable = (value: unknown): value is AsyncIterable<unknown> =>
  typeof value === 'object' && value !== null && Symbol.asyncIterator in value
