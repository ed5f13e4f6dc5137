// `agentlog trace SOURCE [--session ID] (--otlp URL | --json) [--content] [--service NAME]`: a stored
// session's spans (agentlog/otel's traceLog, at the log's own times), sent to an OTLP/HTTP collector
// through the official exporter or printed as JSON. A session of a store brings its sub-agents'
// sessions (the child ids its tool results record). Needs the OpenTelemetry SDK installed.
import fs from 'node:fs'
import type { AgentEvent } from '../core/events.js'
import type { SessionStore } from '../hub/types.js'
import { AgentError, messageOf } from '../core/errors.js'
import { childSessionOf } from '../otel/links.js'
import { parse, UsageError, type Command, type Io, type Parsed } from './command.js'
import { escapeControlsKeepLines } from './escape.js'
import { isDatabaseUrl, loadSource, openStore, SOURCE_OPTIONS, SOURCE_USAGE } from './source.js'

export const traceCommand: Command = {
  summary: 'send a stored session\'s OpenTelemetry spans to an OTLP/HTTP collector, or print them',
  usage: `agentlog trace ${SOURCE_USAGE} (--otlp http://host:4318 | --json) [--content] [--service NAME]`,
  async run(args, io) {
    const { values, positionals } = parse(args, {
      otlp: { type: 'string' }, json: { type: 'boolean' }, content: { type: 'boolean' }, service: { type: 'string' }, ...SOURCE_OPTIONS,
    }, ['SOURCE'])
    if (!values.otlp === !values.json) throw new UsageError('give exactly one of --otlp URL (send to a collector) and --json (print the spans)')
    const { recordSpans, sendOtlp, spanJson } = await loadSdk()
    const logs = await loadTree(positionals[0], values, io)
    const spans = await recordSpans(logs, { captureContent: values.content === true, serviceName: (values.service as string | undefined) ?? 'agentlog' })
    if (values.json) {
      io.out(escapeControlsKeepLines(JSON.stringify(spans.map(spanJson), null, 2)))
      return 0
    }
    const url = await sendOtlp(spans, values.otlp as string)
    const replies = new Set(spans.map((s) => `${s.attributes['agentlog.session_id']}/${s.attributes['agentlog.reply_id']}`)).size
    io.out(`sent ${spans.length} spans (${replies} replies, ${logs.length} session${logs.length === 1 ? '' : 's'}) to ${url}`)
    return 0
  },
}

/** agentlog/otel's SDK side, loaded only by the commands that export spans: @opentelemetry/api is an optional peer dependency. */
export const loadSdk = async (command = 'agentlog trace') => {
  try {
    return await import('../otel/sdk.js')
  } catch (error) {
    throw new AgentError('MISSING_DEPENDENCY', `${command} needs OpenTelemetry: npm install @opentelemetry/api @opentelemetry/sdk-trace-base @opentelemetry/resources @opentelemetry/exporter-trace-otlp-http (${messageOf(error)}).`)
  }
}

/** The log of the source; for a session of a store, with every descendant session's log. */
const loadTree = async (source: string, values: Parsed['values'], io: Io): Promise<AgentEvent[][]> => {
  const isStore = isDatabaseUrl(source) || (fs.existsSync(source) && fs.statSync(source).isDirectory())
  if (!isStore || values.session === undefined) return [(await loadSource(source, values, io)).events]
  const store = await openStore(source, values.schema as string | undefined)
  try {
    return await withDescendants(store, values.session as string)
  } finally {
    await store.close()
  }
}

const withDescendants = async (store: SessionStore, root: string): Promise<AgentEvent[][]> => {
  const logs: AgentEvent[][] = []
  const queue = [root]
  const seen = new Set(queue)
  while (queue.length) {
    const id = queue.shift()!
    const log = await store.read(id)
    logs.push(log)
    for (const event of log) {
      const child = event.type === 'TOOL_RESULT_START' ? childSessionOf(event, id) : null
      if (child && !seen.has(child)) {
        seen.add(child)
        queue.push(child)
      }
    }
  }
  return logs
}
