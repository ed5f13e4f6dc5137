// instrument(): live spans and metrics for an agent or for every agent a hub opens, from the same
// fold of events traceLog runs (lib/otel/session.ts), so live and rebuilt traces are the same.
// An agent attached mid-reply (a restored session) folds its current reply first without emitting,
// except a reply a crash cut that the restore just closed: those spans were never ended, so they are.
// Per event it does one switch (a streamed delta is ignored unless contents are captured).
// Sub-agents follow on their own: every child an attached agent's calls start (agentTool), at any
// depth, is attached as it is linked (and those already linked: revived from their logs), and
// detached once its reply ends, so the tree is one trace and nothing is kept per finished child.
import { metrics, trace, INVALID_SPAN_CONTEXT, type MeterProvider, type Tracer, type TracerProvider } from '@opentelemetry/api'
import type { Agent } from '../agent/agent.js'
import { AgentError, describe } from '../core/errors.js'
import type { AgentEvent } from '../core/events.js'
import type { Hub } from '../hub/types.js'
import { childLinked$, childLinks } from '../subagents/links.js'
import { agentMetrics } from './metrics.js'
import { SessionTrace, SubAgentLinks } from './session.js'
import type { TraceOptions, TraceSettings } from './settings.js'

export interface InstrumentOptions extends TraceOptions {
  /** Default: the global tracer provider (`trace.getTracerProvider()`). */
  tracerProvider?: TracerProvider
  /** Default: the global meter provider. */
  meterProvider?: MeterProvider
}

export interface Instrumentation {
  /** Traces one more agent (and its sub-agents) with the same providers and sub-agent links. */
  attach(agent: Agent): void
  /** Stops emitting, for every agent and sub-agent attached (spans in flight are not ended). */
  stop(): void
}

export const INSTRUMENTATION_SCOPE = 'agentlog'

/** Emits the spans and metrics of `target`'s replies as they run: an Agent, or a Hub (every agent it holds open). */
export const instrument = (target: Agent | Hub, options: InstrumentOptions = {}): Instrumentation => {
  if (options.tracerProvider !== undefined && typeof options.tracerProvider?.getTracer !== 'function')
    throw new AgentError('INVALID_OPTION', 'instrument: tracerProvider must be an OpenTelemetry TracerProvider (e.g. new BasicTracerProvider({ spanProcessors })); leave it out to use the global one.')
  if (options.meterProvider !== undefined && typeof options.meterProvider?.getMeter !== 'function')
    throw new AgentError('INVALID_OPTION', 'instrument: meterProvider must be an OpenTelemetry MeterProvider (e.g. new MeterProvider({ readers })); leave it out to use the global one.')
  const { maxContentLength } = options
  if (maxContentLength !== undefined && !(Number.isInteger(maxContentLength) && maxContentLength >= 1))
    throw new AgentError('INVALID_OPTION', `instrument: maxContentLength must be a whole number of characters, at least 1; received ${describe(maxContentLength)}.`)
  const tracer = (options.tracerProvider ?? trace.getTracerProvider()).getTracer(INSTRUMENTATION_SCOPE)
  const meter = (options.meterProvider ?? metrics.getMeterProvider()).getMeter(INSTRUMENTATION_SCOPE)
  const base: TraceSettings = { ...options, tracer, observer: agentMetrics(meter, options.providerName) }
  const links = new SubAgentLinks(false)
  /** The agents attached now: the roots, and the sub-agents whose reply has not ended. */
  const attached = new Map<Agent, () => void>()
  const attach = (agent: Agent, sub = false) => {
    if (attached.has(agent)) return
    let stop = () => {}
    attached.set(agent, () => stop())
    // Held: a tree caught up at once (restored from its logs) nests children under calls already ended.
    links.hold(() => {
      stop = attachAgent(agent, base, links, { sub, child: (child) => attach(child, true), detached: () => attached.delete(agent) })
    })
    // A sub-agent whose reply is over (a restored tree) was only caught up: nothing more will come.
    if (sub && agent.state.status === 'idle' && loadedEvents(agent).length > 0) stop()
  }
  let unobserve = () => {}
  if (isAgent(target)) attach(target)
  else if (typeof target?.onAgent === 'function') unobserve = target.onAgent(attach)
  else throw new AgentError('INVALID_OPTION', 'instrument expects an Agent (createAgent) or a Hub (createHub); a hub built elsewhere needs onAgent(listener).')
  return {
    attach(agent) {
      if (!isAgent(agent)) throw new AgentError('INVALID_OPTION', 'attach expects an Agent (createAgent).')
      attach(agent)
    },
    stop() {
      unobserve()
      for (const stop of [...attached.values()]) stop()
    },
  }
}

const isAgent = (target: unknown): target is Agent =>
  typeof (target as Agent)?.events$?.subscribe === 'function' && typeof (target as Agent).session_id === 'string'

/** The calls after which a reply may have parked (checked once the burst is over, as ReplyRun does). */
const mayPause: ReadonlySet<string> = new Set(['REQUIRE_USER_CONFIRM', 'REQUIRE_EXTERNAL_EXECUTION', 'TOOL_RESULT_START', 'TOOL_RESULT_END'])

interface Attaching {
  /** A sub-agent: detached once its reply ends. */
  sub: boolean
  /** Attaches a sub-agent of this agent. */
  child: (agent: Agent) => void
  detached: () => void
}

const attachAgent = (agent: Agent, base: TraceSettings, links: SubAgentLinks, { sub, child, detached }: Attaching): (() => void) => {
  const settings: TraceSettings = { ...base }
  const session = new SessionTrace(settings, links, agent.session_id)
  catchUp(agent, session, settings, base)
  let checking = false
  const checkPause = () => {
    checking = false
    const { status, reply_id } = agent.state
    try {
      if (status === 'paused' && reply_id === session.reply_id) session.pause()
    } catch {
      // as above: instrumentation never breaks the agent
    }
  }
  const subscription = agent.events$.subscribe((event) => {
    try {
      session.push(event)
    } catch {
      // A tracer or processor that throws must not reach the agent: the span is lost, the reply goes on.
    }
    if (sub && event.type === 'REPLY_END') return stop()
    if (!checking && mayPause.has(event.type)) {
      checking = true
      queueMicrotask(checkPause)
    }
  })
  // Its sub-agents: those linked already (revived with it), then each as its call starts it.
  for (const link of childLinks(agent)) child(link.agent)
  const children = childLinked$(agent).subscribe((link) => child(link.agent))
  const stop = () => {
    subscription.unsubscribe()
    children.unsubscribe()
    unwatch()
    detached()
  }
  // A closed (or broken) agent emits nothing more: forget its session.
  const unwatch = agent.onLogFailure(stop)
  return stop
}

/**
 * Folds the reply in progress (or the last one) without emitting, so the next events continue it;
 * a crash's close at the end of the log (no stop asked for, REPLY_END interrupted last) is emitted
 * from the start of the segment it cut, as that segment's spans never ended in the process that died.
 */
const catchUp = (agent: Agent, session: SessionTrace, settings: TraceSettings, base: TraceSettings) => {
  const log = loadedEvents(agent)
  let start = log.length
  while (start > 0 && log[start - 1].type !== 'REPLY_START') start--
  if (start === 0) {
    // The reply started before the events this process loaded (a session opened from its snapshot).
    const { status, reply_id, session_id } = agent.state
    if (status === 'paused' && reply_id) session.adopt(reply_id, agent.name, session_id ?? agent.session_id)
    return
  }
  start -= 1
  if (start > 0 && log[start - 1].type === 'USER_MESSAGE') start -= 1
  const reply = log.slice(start)
  const emitFrom = crashClosed(reply) ? lastSegmentStart(reply) : reply.length
  settings.tracer = SILENT
  settings.observer = undefined
  for (let i = 0; i < reply.length; i++) {
    if (i === emitFrom) Object.assign(settings, { tracer: base.tracer, observer: base.observer })
    session.push(reply[i])
  }
  Object.assign(settings, { tracer: base.tracer, observer: base.observer })
  if (agent.state.status === 'paused') session.pause()
}

/** The events this process holds (a session opened from a snapshot holds only those after it). */
const loadedEvents = (agent: Agent): readonly AgentEvent[] => {
  try {
    return agent.log
  } catch {
    return []
  }
}

const crashClosed = (reply: readonly AgentEvent[]): boolean => {
  const last = reply[reply.length - 1]
  return last.type === 'REPLY_END' && last.finished_reason === 'interrupted' && !reply.some((e) => e.type === 'INTERRUPT_REQUESTED' || e.type === 'USER_INTERRUPT')
}

const lastSegmentStart = (reply: readonly AgentEvent[]): number => {
  for (let i = reply.length - 1; i > 0; i--) if (reply[i].type === 'USER_CONFIRM_RESULT' || reply[i].type === 'EXTERNAL_EXECUTION_RESULT') return i
  return 0
}

/** A tracer whose spans record nothing (the catch-up fold). */
const SILENT = {
  startSpan: () => trace.wrapSpanContext(INVALID_SPAN_CONTEXT),
  startActiveSpan: () => { throw new Error('not used') },
} as unknown as Tracer
