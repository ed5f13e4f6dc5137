// What must hold of one driven reply, from the caller's side: the events it saw validate and belong
// to its reply; they are what the log shows (a prefix when it left early); a new message starts
// with REPLY_START and a resume never does; an interference on a running reply ends it as
// interrupted; a parked reply yields no REPLY_END; reply() resolves or rejects as REFERENCE.md says.
import { isDeepStrictEqual } from 'node:util'
import { DEFAULT_INTERRUPT_TEXT, isOutputEvent, ModelError, type ReplyEndEvent } from '../../../lib/index.js'
import type { Run } from './drive.js'
import { eventProblems, isAgentScopeType } from '../../helpers/wireSchemas.js'
import type { World } from './world.js'

export const runProblems = (world: World, run: Run): string[] => {
  const { agent } = world
  const state = agent.state
  const problems: string[] = []
  const saw = run.yielded
  for (const e of saw) problems.push(...eventProblems(e).slice(0, 3).map((p) => `the caller saw an invalid event: ${p}`))
  for (const e of saw) if (!isAgentScopeType(e.type)) problems.push(`the caller saw ${e.type}, which is not an AgentScope event`)
  if (saw.some((e) => e.reply_id !== run.reply_id)) problems.push(`the caller saw events of another reply than ${run.reply_id}`)
  const starts = saw.filter((e) => e.type === 'REPLY_START').length
  if (run.inputType === 'USER_MESSAGE' && saw.length && (saw[0].type !== 'REPLY_START' || starts !== 1)) problems.push('a new message did not yield exactly one REPLY_START, first')
  if (run.inputType !== 'USER_MESSAGE' && starts) problems.push(`resuming with ${run.inputType} yielded REPLY_START`)

  const logged = agent.log.slice(run.logBefore).filter((e) => isOutputEvent(e) && e.reply_id === run.reply_id)
  const trigger = run.trigger
  // Leaving early, the caller sees a prefix. So it does when agent.interrupt() finds the reply
  // already parked (its pause still unread in the stream): the stream ends at the pause, and the
  // USER_INTERRUPT that interrupt() sends closes the reply outside it.
  const leftEarly = trigger !== null && (run.form === 'break' || run.form === 'unsubscribe' || (run.form === 'interrupt' && trigger.state.status === 'paused'))
  const seenIds = saw.map((e) => e.id)
  const loggedIds = logged.map((e) => e.id).slice(0, leftEarly ? saw.length : undefined)
  if (!isDeepStrictEqual(seenIds, loggedIds))
    problems.push(`the caller saw [${saw.map((e) => e.type).join(' ')}] but the log holds [${logged.map((e) => e.type).join(' ')}]`)

  const end = logged.find((e): e is ReplyEndEvent => e.type === 'REPLY_END')
  const wasRunning = trigger?.state.status === 'running' && trigger.state.reply_id === run.reply_id
  if (wasRunning && !end) problems.push(`${run.form} while the reply ran, but it did not end`)
  // From inside the store's delivery an end already queued may win; from outside the interrupt decides.
  if (wasRunning && end && !trigger!.inDrain && end.finished_reason !== 'interrupted') problems.push(`${run.form} while the reply ran, but it ended ${end.finished_reason}`)
  if (run.form === 'interrupt' && trigger?.state.status === 'paused' && !end) problems.push('agent.interrupt() on a parked reply did not end it')
  if (state.status === 'paused' && state.reply_id === run.reply_id && saw.some((e) => e.type === 'REPLY_END')) problems.push('a parked reply yielded REPLY_END')
  if (!leftEarly && end && saw.at(-1)?.id !== end.id) problems.push(`the reply ended but the caller's last event is ${saw.at(-1)?.type ?? 'none'}`)

  if (run.via === 'reply') problems.push(...replyResultProblems(world, run, end))
  else if (run.error) problems.push(`the ${run.via} consumer failed: ${String(run.error)}`)
  return problems
}

/** reply(): the ended message, the parked message, the interruption or exceeded-iterations notice (AgentScope's), or a ModelError. */
const replyResultProblems = (world: World, run: Run, end: ReplyEndEvent | undefined): string[] => {
  const state = world.agent.state
  const { result, error } = run
  if (end?.finished_reason === 'error') {
    const ok = error instanceof ModelError && error.type === end.error?.type && error.message === end.error?.message
    return ok ? [] : [`reply() should reject with the ModelError of ${JSON.stringify(end.error)}; got ${String(error ?? 'a message')}`]
  }
  if (error) return [`reply() rejected: ${String(error)}`]
  if (!result) return ['reply() resolved to nothing']
  if (end?.finished_reason === 'interrupted' || end?.finished_reason === 'exceed_max_iters') {
    const text = result.content[0]?.type === 'text' ? result.content[0].text : undefined
    const inContext = state.context.some((m) => isDeepStrictEqual(m, result))
    const notice = end.finished_reason === 'interrupted' ? DEFAULT_INTERRUPT_TEXT : 'The maximum reasoning-acting iterations are exceeded.'
    if (result.id !== end.reply_id || result.finished_reason !== end.finished_reason || text !== notice || inContext)
      return [`an ${end.finished_reason} reply() resolved to ${JSON.stringify(result).slice(0, 200)}`]
    return []
  }
  const expected = end ? state.context.find((m) => m.id === end.reply_id) : state.reply_msg
  return isDeepStrictEqual(result, expected) ? [] : [`reply() resolved to ${result.id} (${result.finished_reason}), not the ${end ? 'ended' : 'parked'} message`]
}
