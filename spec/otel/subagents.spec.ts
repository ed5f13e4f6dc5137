// Sub-agents in traces: a tree of logs linked as issue 21 records it (the child's first REPLY_START
// names its parent call in metadata.parent; the parent's TOOL_RESULT_START names the child session)
// nests each child's reply under its parent's execute_tool span, whether the logs are given
// together (in any order) or found through a resolver. The logs are built by hand to that convention.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { AgentEvent } from 'agentlog'
import { traceLog } from 'agentlog/otel'
import { memoryTracing, named, outline, shapes } from './helpers.js'
import { tree } from './treeLogs.js'
import { SessionTrace, SubAgentLinks } from '../../lib/otel/session.js'

const test = suite('otel/subagents')

const EXPECTED = [
  'invoke_agent Lead',
  '  chat m',
  '  execute_tool researcher',
  '    invoke_agent Researcher',
  '      chat m',
  '      execute_tool fetcher',
  '        invoke_agent Fetcher',
  '          chat m',
  '          execute_tool http_get',
  '          chat m',
  '      chat m',
  '  chat m',
]

test('several logs of a tree, given in any order: each child reply nests under its parent call\'s execute_tool span, in one trace', () => {
  const { root, kid, grandkid } = tree()
  const otel = memoryTracing()
  traceLog([grandkid, kid, root], { tracer: otel.tracer })
  const spans = otel.spans()
  assert.equal(outline(spans), EXPECTED)
  const [researcherCall] = named(spans, 'execute_tool researcher')
  const [researcher] = named(spans, 'invoke_agent Researcher')
  assert.is(researcher.parentSpanContext?.spanId, researcherCall.spanContext().spanId)
  assert.is(new Set(spans.map((s) => s.spanContext().traceId)).size, 1, 'the whole tree is one trace')
  assert.is(researcherCall.attributes['agentlog.child_session_id'], 'kid')
  assert.is(researcher.attributes['agentlog.session_id'], 'kid')
})

test('a resolver finds the children from the parent\'s TOOL_RESULT_START and gives the same spans', () => {
  const { root, kid, grandkid } = tree()
  const together = memoryTracing()
  traceLog([root, kid, grandkid], { tracer: together.tracer })
  const resolved = memoryTracing()
  const asked: string[] = []
  const logs: Record<string, AgentEvent[]> = { kid, grandkid }
  traceLog(root, { tracer: resolved.tracer, children: (id) => (asked.push(id), logs[id]) })
  assert.equal(asked, ['kid', 'grandkid'])
  assert.equal(shapes(resolved.spans()), shapes(together.spans()))
})

test('live, events of the tree interleaved as they happen: the same nesting, and no link is kept once the calls end', () => {
  const { root, kid, grandkid } = tree()
  const at = (log: AgentEvent[]) => log.findIndex((e) => e.type === 'TOOL_RESULT_START') + 1
  const arrival = [
    ...root.slice(0, at(root)), ...kid.slice(0, at(kid)), ...grandkid, ...kid.slice(at(kid)), ...root.slice(at(root)),
  ]
  const otel = memoryTracing()
  const links = new SubAgentLinks(false)
  const settings = { tracer: otel.tracer }
  const sessions = new Map(['root', 'kid', 'grandkid'].map((id) => [id, new SessionTrace(settings, links, id)]))
  const own = new Map<AgentEvent, string>([...root.map((e) => [e, 'root'] as const), ...kid.map((e) => [e, 'kid'] as const), ...grandkid.map((e) => [e, 'grandkid'] as const)])
  for (const event of arrival) sessions.get(own.get(event)!)!.push(event)
  assert.equal(outline(otel.spans()), EXPECTED)
  assert.is(new Set(otel.spans().map((s) => s.spanContext().traceId)).size, 1)
  assert.is(links.size, 0)
})

test('a child log without its parent\'s log is traced as a root of its own', () => {
  const { kid } = tree()
  const otel = memoryTracing()
  traceLog(kid, { tracer: otel.tracer })
  const [researcher] = named(otel.spans(), 'invoke_agent Researcher')
  assert.is(researcher.parentSpanContext, undefined)
})

test.run()
