// compactContext: before a model call whose estimated input is over the limit, summarizes the
// older part of what the model sees, keeping `keepRecent` segments, with a streamed model call.
// Emits: CONTEXT_COMPACTED (the summary, the position it covers, the call's usage) once the summary
// is complete, or nothing (under the limit, nothing to cut, an empty summary, a failed call: an
// unfinished or failed compaction changes nothing and the model call goes ahead as it was).
// Cancelled by: unsubscribing (the reply's cancel$, via advanceReply), which aborts the call.
// Concurrency: one at a time, in front of the model call it prepares (concat in advanceReply).
import { EMPTY, type Observable } from 'rxjs'
import { createEvent } from '../lib/core/clock.js'
import { estimateRequestTokens, transcript } from '../lib/agent/compaction.js'
import type { AgentEvent } from '../lib/core/events.js'
import { zeroUsage, type Msg } from '../lib/core/messages.js'
import type { StateObservable } from '../lib/core/store.js'
import { coveredSoFar, historyBetween, selectConversation, selectCutPoints, selectHistory, selectKnownUsage, summaryMsg } from '../reducers/selectors.js'
import { abortable } from './abortable.js'
import { systemMsg } from './callModel.js'
import type { AgentDeps } from './deps.js'

export const compactContext = (state$: StateObservable, deps: AgentDeps): Observable<AgentEvent> => {
  const settings = deps.compaction
  if (!settings) return EMPTY
  const state = state$.value
  if (!state.reply_msg) return EMPTY
  const tools = [...deps.tools.values()].map((tool) => tool.spec)
  const estimate = estimateRequestTokens({ system: deps.sysPrompt, messages: selectConversation(state), tools }, selectKnownUsage(state))
  if (estimate <= settings.maxContextTokens) return EMPTY
  const points = selectCutPoints(state)
  const cut = points[points.length - settings.keepRecent]
  if (!cut) return EMPTY
  const history = selectHistory(state)
  const covered = [...(state.compaction ? [summaryMsg(state.compaction)] : []), ...historyBetween(history, coveredSoFar(state), cut)]
  const model = settings.summarize ?? deps.model
  const { id: reply_id, created_at } = state.reply_msg
  const request = {
    messages: [systemMsg(settings.prompt, created_at), userMsg(`The conversation so far:\n\n${transcript(covered)}`, created_at)],
    tools: [],
    tool_choice: 'none' as const,
  }
  return abortable<AgentEvent>(async (signal, subscriber) => {
    let summary = ''
    let usage = zeroUsage()
    for await (const chunk of model.stream(request, { signal })) {
      if (subscriber.closed) return
      if (chunk.type === 'text') summary += chunk.delta
      else if (chunk.type === 'usage') usage = { input_tokens: chunk.input_tokens, output_tokens: chunk.output_tokens, cache_input_tokens: chunk.cache_input_tokens ?? 0, cache_creation_input_tokens: chunk.cache_creation_input_tokens ?? 0 }
    }
    if (subscriber.closed || !summary.trim()) return
    subscriber.next(createEvent(deps.clock, 'CONTEXT_COMPACTED', { reply_id, summary: summary.trim(), model_name: model.name, covers: cut, ...usage }))
  }, () => undefined)
}

const userMsg = (text: string, created_at: string): Msg => ({
  id: 'compaction-input', name: 'user', role: 'user', metadata: {}, created_at,
  content: [{ type: 'text', id: 'compaction-input-text', text, created_at, finished_at: created_at }],
  usage: null, finished_at: created_at, finished_reason: null, structured_output: null, error: null,
})
