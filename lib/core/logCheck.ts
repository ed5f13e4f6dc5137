// checkLog: folds a log and checks, event by event, the wire schema and the invariants of
// REFERENCE.md section 5 that a log can show: every ended reply answers each tool call exactly once
// (1), one REPLY_END per reply and none while parked (2), seq stamps match positions (3), nothing
// starts after an interrupt or a gentle stop (4), input that the guards refuse is absent (5), usage is kept (6),
// and steers join only at a step boundary.
// Pure and browser-safe; the CLI's `validate` prints what it finds.
import { checkInput } from '../../reducers/guards.js'
import { rootReducer } from '../../reducers/root.js'
import { replyIdOf } from '../../reducers/selectors.js'
import { initialState, type AgentState } from '../../reducers/state.js'
import { AgentError } from './errors.js'
import { AgentEventSchema, type AgentEvent } from './events.js'
import type { Msg, ToolResultBlock } from './messages.js'

export interface Finding {
  /** The event's position in the log (its line in a file log is seq + 1). */
  seq: number
  message: string
}

export interface LogCheck {
  violations: Finding[]
  /** Not wrong, but worth knowing: a log cut inside a running reply, a reply left paused. */
  notes: Finding[]
  /** The state after the whole log. */
  state: AgentState
}

const INPUT_TYPES: ReadonlySet<string> = new Set(['USER_MESSAGE', 'USER_CONFIRM_RESULT', 'EXTERNAL_EXECUTION_RESULT', 'USER_INTERRUPT'])
const USAGE_KEYS = ['input_tokens', 'output_tokens', 'cache_input_tokens', 'cache_creation_input_tokens'] as const

export const checkLog = (events: readonly AgentEvent[]): LogCheck => {
  const violations: Finding[] = []
  const notes: Finding[] = []
  const started = new Set<string>()
  const ended = new Set<string>()
  let interruptedAt = 0 // seq of the interrupt of the reply in progress, or 0
  let stoppedAt = 0 // seq of the gentle stop of the reply in progress, or 0
  let state = initialState()

  events.forEach((event, index) => {
    const seq = index + 1
    const fail = (message: string) => violations.push({ seq, message })
    const parsed = AgentEventSchema.safeParse(event)
    if (!parsed.success) {
      const issue = parsed.error.issues[0]
      return fail(`not a valid event${issue.path.length ? ` at ${issue.path.join('.')}` : ''}: ${issue.message}`)
    }
    const stamped = (event.metadata as { seq?: unknown }).seq
    if (stamped !== undefined && stamped !== seq) fail(`${event.type} is stamped seq ${JSON.stringify(stamped)} at position ${seq} (3: the log is not the one the store wrote)`)
    if (INPUT_TYPES.has(event.type)) {
      const verdict = checkInput(state, event)
      if (verdict instanceof AgentError) fail(`${event.type} was recorded but must be refused (5): ${verdict.message}`)
      // A USER_INTERRUPT admitted while the reply was paused can land behind a burst that resumed
      // it (sent from a subscriber during delivery): it then interrupts the running reply.
      else if (verdict === 'noop' && !(event.type === 'USER_INTERRUPT' && state.status === 'running')) fail(`${event.type} was recorded but changes nothing (5: the agent records no no-op input)`)
    }
    const replyId = 'reply_id' in event ? event.reply_id : null
    switch (event.type) {
      case 'REPLY_START':
        if (state.status !== 'idle') fail(`REPLY_START while reply ${state.reply_id} is ${state.status}`)
        if (started.has(event.reply_id)) fail(`reply ${event.reply_id} starts a second time`)
        started.add(event.reply_id)
        interruptedAt = 0
        stoppedAt = 0
        break
      case 'REPLY_END':
        if (!started.has(event.reply_id)) fail(`REPLY_END for reply ${event.reply_id}, which never started`)
        else if (ended.has(event.reply_id)) fail(`a second REPLY_END for reply ${event.reply_id} (2)`)
        else if (state.status === 'paused') fail(`REPLY_END while reply ${event.reply_id} is paused (2: a parked reply ends only through USER_INTERRUPT)`)
        ended.add(event.reply_id)
        break
      case 'INTERRUPT_REQUESTED':
      case 'USER_INTERRUPT':
        if (event.reply_id === state.reply_id && state.status !== 'idle' && !interruptedAt) interruptedAt = seq
        break
      case 'STOP_REQUESTED':
        if (event.reply_id === state.reply_id && state.status !== 'idle' && !interruptedAt) stoppedAt = seq
        break
      case 'MODEL_CALL_START':
        if (interruptedAt) fail(`a model call starts after the interrupt at seq ${interruptedAt} (4)`)
        if (stoppedAt) fail(`a model call starts after the gentle stop at seq ${stoppedAt} (4: nothing new starts)`)
        break
      case 'TOOL_STARTED':
        if (stoppedAt && event.metadata.not_run !== true) fail(`tool call ${event.tool_call_id} starts after the gentle stop at seq ${stoppedAt} (4: nothing new starts)`)
        break
      case 'CONTEXT_COMPACTED':
        if (interruptedAt) fail(`a compaction is recorded after the interrupt at seq ${interruptedAt} (4: an interrupted compaction changes nothing)`)
        else if (rootReducer(state, event).compaction === state.compaction) fail(`CONTEXT_COMPACTED covers ${event.covers.messages} messages and ${event.covers.blocks} blocks, which is not a cut point after the current one (the reducers ignore it)`)
        break
      case 'MODEL_CALL_END':
        if (state.loop?.model_call_open && state.loop.model_call_usage) {
          const known = state.loop.model_call_usage
          const lost = USAGE_KEYS.filter((k) => event[k] < known[k])
          if (lost.length) fail(`MODEL_CALL_END reports less ${lost.join(', ')} than the call had recorded (6: usage is lost)`)
        }
        break
      case 'TOOL_RESULT_END':
        if (interruptedAt && event.state !== 'interrupted' && replyId === state.reply_id)
          fail(`tool call ${event.tool_call_id} gets a ${event.state} result after the interrupt at seq ${interruptedAt} (4)`)
    }
    if (event.type.startsWith('TOOL_RESULT_') && 'tool_call_id' in event) {
      const call = state.reply_msg?.content.find((b) => b.type === 'tool_call' && b.id === event.tool_call_id)
      if (call?.type === 'tool_call' && call.state === 'finished')
        fail(`${event.type} for tool call ${event.tool_call_id}, which already has its result (4: a late result is recorded nowhere)`)
    }
    if (replyId !== null && event.type !== 'REPLY_START' && !INPUT_TYPES.has(event.type) && (state.status === 'idle' || replyId !== state.reply_id))
      fail(`${event.type} for reply ${replyId}, which is not in progress (the reducers ignore it)`)

    const replying = state.reply_msg
    if (event.type === 'STEER_JOINED' && replying) for (const problem of unansweredCalls(replying)) fail(`${problem} when steers joined (they join at a step boundary)`)
    state = rootReducer(state, event)
    if (event.type === 'REPLY_END') {
      const msg = state.context[state.context.length - 1]
      // A reply interrupted before the model produced anything leaves no message.
      // So does an empty continuation of a reply that steers split (its part before them is in the context).
      const empty = !!replying && replying.content.length === 0 && replying.usage === null && (event.finished_reason === 'interrupted' || replying.id !== event.reply_id)
      if (empty) {
        if (state.reply_msg !== null) fail(`REPLY_END did not close reply ${event.reply_id}`)
      } else if (!msg || replyIdOf(msg) !== event.reply_id) fail(`REPLY_END did not close reply ${event.reply_id}`)
      else for (const problem of unansweredCalls(msg)) fail(`${problem} after the reply ended (1)`)
    }
  })

  const last = events.length
  if (state.status === 'running') notes.push({ seq: last, message: `the log ends inside running reply ${state.reply_id} (the process stopped); opening it for writing closes the reply with REPLY_END(interrupted)` })
  if (state.status === 'paused') notes.push({ seq: last, message: `reply ${state.reply_id} is paused, waiting for ${state.waiting_for.map((c) => `${c.name} (${c.id}, ${c.state})`).join(', ')}` })
  return { violations, notes, state }
}

/** Each tool call of an ended reply must have exactly one result, after it. */
const unansweredCalls = (msg: Msg): string[] => {
  const problems: string[] = []
  msg.content.forEach((block, i) => {
    if (block.type !== 'tool_call') return
    const results = msg.content.filter((b): b is ToolResultBlock => b.type === 'tool_result' && b.id === block.id)
    if (results.length !== 1) problems.push(`tool call ${block.id} (${block.name}) has ${results.length} results`)
    else if (msg.content.indexOf(results[0]) < i) problems.push(`the result of tool call ${block.id} comes before the call`)
    else if (block.state !== 'finished' || results[0].state === 'running') problems.push(`tool call ${block.id} (${block.name}) is left ${block.state}`)
  })
  return problems
}
