// runTool: executes one local tool call as an Observable of its result events (the caller has
// emitted its TOOL_RESULT_START). Emits: TOOL_RESULT_TEXT_DELTA / DATA_DELTA as output arrives (strings, result objects, or async iterables of text), then TOOL_RESULT_END. A thrown
// error becomes an `error` result the model can act on. Cancelled by: unsubscribing (the reply's
// cancel$, via advanceReply), which aborts the tool's AbortSignal at once and drops anything late.
import type { Observable } from 'rxjs'
import type { Clock } from '../lib/clock.js'
import { createEvent } from '../lib/clock.js'
import type { AgentEvent } from '../lib/events.js'
import type { ToolCallBlock, ToolResultBlock } from '../lib/messages.js'
import type { Tool, ToolOutput, ToolResultObject } from '../lib/tools.js'
import { abortable } from './abortable.js'

export const runTool = (clock: Clock, reply_id: string, call: ToolCallBlock, tool: Tool, input: unknown): Observable<AgentEvent> => {
  const tool_call_id = call.id
  const end = (state: 'success' | 'error', metadata: Record<string, unknown> = {}) =>
    createEvent(clock, 'TOOL_RESULT_END', { reply_id, tool_call_id, state, metadata: { ...metadata } })
  return abortable<AgentEvent>(async (signal, subscriber) => {
    const output: ToolOutput = await tool.execute!(input as never, { signal, tool_call_id })
    if (isAsyncIterable(output)) {
      for await (const chunk of output) {
        if (subscriber.closed) return
        subscriber.next(createEvent(clock, 'TOOL_RESULT_TEXT_DELTA', { reply_id, tool_call_id, delta: String(chunk) }))
      }
      if (!subscriber.closed) subscriber.next(end('success'))
      return
    }
    if (subscriber.closed) return
    const result: ToolResultObject = typeof output === 'string' ? { output } : output
    for (const event of outputEvents(clock, reply_id, tool_call_id, result.output)) subscriber.next(event)
    subscriber.next(end(result.state ?? 'success', result.metadata))
  }, (error, subscriber) => {
    const message = error instanceof Error ? error.message : String(error)
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

const isAsyncIterable = (value: unknown): value is AsyncIterable<unknown> =>
  typeof value === 'object' && value !== null && Symbol.asyncIterator in value
