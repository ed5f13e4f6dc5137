// advanceReply: the ReAct loop. After each decision point it asks the pure planner what the reply
// does next and does it: call the model (compacting the context first when it is over its limit),
// run tools, ask, submit, answer a call, or end the reply.
// Listens: REPLY_START, MODEL_CALL_END, TOOL_RESULT_END, USER_CONFIRM_RESULT, STEER_JOINED, STOP_REQUESTED.
// Emits: the work's events (compactContext, callModel, runTool), REQUIRE_USER_CONFIRM, REQUIRE_EXTERNAL_EXECUTION,
// synthesized results, STEER_JOINED, a gentle stop's closing events (closeReply), REPLY_END. Cancelled by: INTERRUPT_REQUESTED / USER_INTERRUPT (takeUntil
// inside each unit of work, so stopping aborts the model request and every running tool).
// Concurrency: decision points are coalesced to one plan per burst of events (auditTime on the
// microtask queue, so the plan sees the state after the whole burst); mergeMap, because the
// tools of a batch run in parallel and a later decision must not cancel them.
import { asapScheduler, auditTime, concat, defer, EMPTY, from, merge, mergeMap, takeUntil, type Observable } from 'rxjs'
import type { Clock } from '../lib/core/clock.js'
import { createEvent } from '../lib/core/clock.js'
import type { AgentEvent } from '../lib/core/events.js'
import { TextBlock } from '../lib/core/factories.js'
import { OUTPUT_REMINDER_SOURCE } from '../lib/agent/structuredOutput.js'
import { RUNTIME_HINT_SOURCE, runtimeHint } from '../lib/agent/hints.js'
import { selectConversation } from '../reducers/selectors.js'
import { closeReply } from '../reducers/interrupt.js'
import type { PermissionRule, ToolCallBlock } from '../lib/core/messages.js'
import type { StateObservable } from '../lib/core/store.js'
import type { AgentState } from '../reducers/state.js'
import { callModel } from './callModel.js'
import { compactContext } from './compactContext.js'
import type { AgentDeps } from './deps.js'
import { ofType } from './ofType.js'
import { planNextStep, type Action } from './plan.js'
import { runTool } from './runTool.js'

export const advanceReply = (event$: Observable<AgentEvent>, state$: StateObservable, deps: AgentDeps): Observable<AgentEvent> => {
  const cancel$ = event$.pipe(ofType('INTERRUPT_REQUESTED', 'USER_INTERRUPT'))
  return event$.pipe(
    ofType('REPLY_START', 'MODEL_CALL_END', 'TOOL_RESULT_END', 'USER_CONFIRM_RESULT', 'STEER_JOINED', 'STOP_REQUESTED'),
    auditTime(0, asapScheduler),
    // The plan reads the state without handing it out (the actions hold blocks, never the state).
    mergeMap(() => state$.peek((state) => {
      const actions = planNextStep(state, deps)
      if (actions.length === 0) return EMPTY
      return perform(actions, state, state$, deps).pipe(takeUntil(cancel$))
    })),
  )
}

/**
 * The synchronous decisions first, in call order as AgentScope makes them (an answer's result, a
 * run's TOOL_RESULT_START, a submission's START and REQUIRE_EXTERNAL_EXECUTION, an ask's
 * REQUIRE_USER_CONFIRM), then the end; then the work that takes time. The reply counts as parked
 * only once the whole burst is folded (ReplyRun checks after it). A consumer that interrupts on one
 * of the decisions stops the work before it starts (takeUntil completes the concat first).
 */
const perform = (actions: Action[], state: AgentState, state$: StateObservable, deps: AgentDeps): Observable<AgentEvent> => {
  const { reply_id: id, session_id } = state
  const reply_id = id!
  const { clock } = deps
  const decisions: AgentEvent[] = []
  const work: Observable<AgentEvent>[] = []
  for (const action of actions) {
    switch (action.kind) {
      case 'model': {
        // The hint goes in first; a compaction, when the context is over its limit, comes next; the call then reads the compacted state.
        const hint = action.hint === undefined ? [] : [createEvent(clock, 'HINT_ADDED', { reply_id, block_id: clock.id(), hint: [TextBlock(action.hint, clock)], source: OUTPUT_REMINDER_SOURCE })]
        work.push(concat(from(hint), defer(() => compactContext(state$, deps)), defer(() => runtimeHintEvents(state$, deps)), defer(() => callModel(state$, deps, action.tool_choice))))
        break
      }
      case 'run': {
        const metadata = action.tool.startMetadata?.(action.call, clock) ?? {}
        decisions.push(
          createEvent(clock, 'TOOL_RESULT_START', { reply_id, tool_call_id: action.call.id, tool_call_name: action.call.name, metadata: { ...metadata } }),
          createEvent(clock, 'TOOL_STARTED', { reply_id, tool_call_id: action.call.id }),
        )
        work.push(runTool(clock, reply_id, action.call, action.tool, action.input, { reply_id, session_id: session_id!, agent: deps.host, metadata }, deps.confirm))
        break
      }
      case 'answer':
        decisions.push(...answer(clock, reply_id, action.call.id, action.call.name, action.state, action.text))
        break
      case 'submit':
        decisions.push(
          createEvent(clock, 'TOOL_RESULT_START', { reply_id, tool_call_id: action.call.id, tool_call_name: action.call.name }),
          createEvent(clock, 'REQUIRE_EXTERNAL_EXECUTION', { reply_id, tool_calls: [{ ...action.call, state: 'submitted' }] }),
        )
        break
      case 'ask':
        decisions.push(createEvent(clock, 'REQUIRE_USER_CONFIRM', { reply_id, tool_calls: [{ ...action.call, state: 'asking', suggested_rules: suggestedRules(action.call) }] }))
        break
      case 'join':
        decisions.push(createEvent(clock, 'STEER_JOINED', { reply_id, msg_ids: action.msg_ids, continuation_id: clock.id() }))
        break
      case 'stop':
        decisions.push(...closeReply(state, clock, { reason: 'interrupted', returnQueue: action.returnQueue }))
        break
      case 'end':
        // AgentScope still sends its deprecated EXCEED_MAX_ITERS right before such an end.
        if (action.reason === 'exceed_max_iters') decisions.push(createEvent(clock, 'EXCEED_MAX_ITERS', { reply_id, name: deps.name }))
        decisions.push(createEvent(clock, 'REPLY_END', { session_id: session_id!, reply_id, finished_reason: action.reason, error: null }))
    }
  }
  // Runs decided after an ask or a submission are announced first, so the reply never looks parked mid-burst.
  const firstParking = decisions.findIndex((e) => e.type === 'REQUIRE_USER_CONFIRM' || e.type === 'REQUIRE_EXTERNAL_EXECUTION')
  const laterRuns = firstParking < 0 ? [] : decisions.slice(firstParking).flatMap((e) => (e.type === 'TOOL_STARTED' ? [e.tool_call_id] : []))
  if (laterRuns.length) decisions.unshift(createEvent(clock, 'RUNS_DECIDED', { reply_id, tool_call_ids: laterRuns }))
  return decisions.length ? concat(from(decisions), merge(...work)) : merge(...work)
}

/** The runtime hint before a model call, when it is on and due (the one place the clock is read for it). */
const runtimeHintEvents = (state$: StateObservable, { runtimeHints, clock }: AgentDeps): Observable<AgentEvent> => {
  if (!runtimeHints) return EMPTY
  const text = state$.peek((state) => runtimeHint(selectConversation(state), Date.parse(clock.now()), runtimeHints))
  const reply_id = state$.peek((state) => state.reply_id!)
  return text === null ? EMPTY : from([createEvent(clock, 'HINT_BLOCK', { reply_id, block_id: clock.id(), hint: [TextBlock(text, clock)], source: RUNTIME_HINT_SOURCE })])
}

const answer = (clock: Clock, reply_id: string, tool_call_id: string, tool_call_name: string, state: 'error' | 'denied', text: string): AgentEvent[] => [
  createEvent(clock, 'TOOL_RESULT_START', { reply_id, tool_call_id, tool_call_name }),
  createEvent(clock, 'TOOL_RESULT_TEXT_DELTA', { reply_id, tool_call_id, delta: text }),
  createEvent(clock, 'TOOL_RESULT_END', { reply_id, tool_call_id, state, metadata: {} }),
]

/** The rule an "always allow" of an asking call grants: this tool, any input (AgentScope's suggestion for a tool without finer rules). */
const suggestedRules = (call: ToolCallBlock): PermissionRule[] => [{ tool_name: call.name, rule_content: null, behavior: 'allow', source: 'suggested' }]
