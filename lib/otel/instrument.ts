// instrument(): live spans and metrics for an agent or for every agent a hub opens, from the same
// fold of events traceLog runs (lib/otel/session.ts), so live and rebuilt traces are the same.
// An agent attached mid-reply (a restored session) folds its current reply first without emitting,
// except a reply a crash cut that the restore just closed: those spans were never ended, so they are.
// Per event it does one switch (a streamed delta is ignored unless contents are captured).
import { metrics, trace, INVALID_SPAN_CONTEXT, type MeterProvider, type Tracer, type TracerProvider } from '@opentelemetry/api'
import type { Agent } from '../agent.js'
import { AgentError } from '../errors.js'
import type { AgentEvent } from '../events.js'
import type { Hub } from '../hub/types.js'
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
  /** Traces one more agent with the same providers and sub-agent links (a sub-agent kept outside a hub). */
  attach(agent: Agent): void
  /** Stops emitting (spans in flight are not ended). */
  stop(): void
}

export const INSTRUMENTATION_SCOPE = 'agentlog'

/** Emits the spans and metrics of `target`'s replies as they run: an Agent, or a Hub (every agent it holds open). */
export const instrument = (target: Agent | Hub, options: InstrumentOptions = {}): Instrumentation => {
  if (options.tracerProvider !== undefined && typeof options.tracerProvider?.getTracer !== 'function')
    throw new AgentError('INVALID_OPTION', 'instrument: tracerProvider must be an OpenTelemetry TracerProvider (e.g. new BasicTracerProvider({ spanProcessors })); leave it out to use the global one.')
  if (options.meterProvider !== undefined && typeof options.meterProvider?.getMeter !== 'function')
    throw new AgentError('INVALID_OPTION', 'instrument: meterProvider must be an OpenTelemetry MeterProvider (e.g. new MeterProvider({ readers })); leave it out to use the global one.')
  const tracer = (options.tracerProvider ?? trace.getTracerProvider()).getTracer(INSTRUMENTATION_SCOPE)
  const meter = (options.meterProvider ?? metrics.getMeterProvider()).getMeter(INSTRUMENTATION_SCOPE)
  const base: TraceSettings = { ...options, tracer, observer: agentMetrics(meter, options.providerName) }
  const links = new SubAgentLinks(false)
  const detach = new Set<() => void>()
  const attach = (agent: Agent) => {
    const stop = attachAgent(agent, base, links, () => detach.delete(stop))
    detach.add(stop)
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
      for (const stop of [...detach]) stop()
    },
  }
}

const isAgent = (target: unknown): target is Agent =>
  typeof (target as Agent)?.events$?.subscribe === 'function' && typeof (target as Agent).session_id === 'string'

/** The calls after which a reply may have parked (checked once the burst is over, as ReplyRun does). */
const mayPause: ReadonlySet<string> = new Set(['REQUIRE_USER_CONFIRM', 'REQUIRE_EXTERNAL_EXECUTION', 'TOOL_RESULT_START', 'TOOL_RESULT_END'])

const attachAgent = (agent: Agent, base: TraceSettings, links: SubAgentLinks, detached: () => void): (() => void) => {
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
    if (!checking && mayPause.has(event.type)) {
      checking = true
      queueMicrotask(checkPause)
    }
  })
  const stop = () => {
    subscription.unsubscribe()
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
