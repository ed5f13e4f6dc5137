// traceLog: the spans of stored sessions, after the fact. A pure function of the events (and of
// the tracer's id generator): the times are the log's, nothing else is read. Several logs of a
// tree of agents (or a resolver of children) nest each sub-agent's replies under its parent's
// execute_tool span, by the links the logs record (issue 21).
import type { Tracer } from '@opentelemetry/api'
import { AgentError } from '../core/errors.js'
import type { AgentEvent } from '../core/events.js'
import { childSessionOf, parentOf } from './links.js'
import { SessionTrace, SubAgentLinks } from './session.js'
import type { TraceOptions } from './settings.js'

export interface TraceLogOptions extends TraceOptions {
  tracer: Tracer
  /** The log of a child session a tool call names (sub-agents), when it is not among the logs given. */
  children?: (session_id: string) => readonly AgentEvent[] | undefined
}

/**
 * Emits the spans of a session's events (or of several sessions' logs, a tree of agents) through
 * `tracer`: one `invoke_agent` span per reply segment, `chat` per model call, `execute_tool` per
 * tool call, at the log's timestamps. A log that ends inside a reply ends its spans at the last
 * event (`agentlog.in_progress`), or at the pause when the reply is parked.
 */
export const traceLog = (logs: readonly AgentEvent[] | readonly (readonly AgentEvent[])[], options: TraceLogOptions): void => {
  if (!options || typeof options.tracer?.startSpan !== 'function') throw new AgentError('INVALID_OPTION', 'traceLog needs { tracer }: a Tracer, e.g. tracerProvider.getTracer(\'agentlog\').')
  if (!Array.isArray(logs)) throw new AgentError('INVALID_INPUT', 'traceLog expects the events of a session (an array), or an array of such logs.')
  const given = (logs.length > 0 && Array.isArray(logs[0]) ? logs : [logs]) as readonly (readonly AgentEvent[])[]
  const links = new SubAgentLinks(true)
  const settings = { ...options, tracer: options.tracer }
  for (const log of inTreeOrder(withChildren(given, options.children))) {
    const session = new SessionTrace(settings, links, sessionOf(log))
    for (const event of log) session.push(event)
    session.finish()
  }
}

const sessionOf = (log: readonly AgentEvent[]): string => {
  for (const event of log) if (event.type === 'REPLY_START') return event.session_id
  return ''
}

/** The logs given plus every child log the resolver finds, transitively. */
const withChildren = (logs: readonly (readonly AgentEvent[])[], resolve: TraceLogOptions['children']) => {
  if (!resolve) return logs
  const all = [...logs]
  const known = new Set(all.map(sessionOf))
  for (let i = 0; i < all.length; i++) {
    const own = sessionOf(all[i])
    for (const event of all[i]) {
      const child = event.type === 'TOOL_RESULT_START' ? childSessionOf(event, own) : null
      if (!child || known.has(child)) continue
      known.add(child)
      const log = resolve(child)
      if (log) all.push(log)
    }
  }
  return all
}

/** Parents before their children (a child's spans need its parent call's span). */
const inTreeOrder = (logs: readonly (readonly AgentEvent[])[]) => {
  const parentSession = new Map<string, string>()
  for (const log of logs) {
    const start = log.find((e) => e.type === 'REPLY_START')
    const parent = start && parentOf(start)
    if (start?.type === 'REPLY_START' && parent) parentSession.set(start.session_id, parent.session_id)
  }
  const depth = (session: string, seen = new Set<string>()): number => {
    const parent = parentSession.get(session)
    if (parent === undefined || seen.has(session)) return 0
    seen.add(session)
    return depth(parent, seen) + 1
  }
  return logs.map((log) => ({ log, depth: depth(sessionOf(log)) })).sort((a, b) => a.depth - b.depth).map((x) => x.log)
}
