// Sub-agents in traces: a tree of logs linked as issue 21 records it (the child's first REPLY_START
// names its parent call in metadata.parent; the parent's TOOL_RESULT_START names the child session)
// nests each child's reply under its parent's execute_tool span, whether the logs are given
// together (in any order) or found through a resolver. The logs are built by hand to that convention.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { AgentEvent } from 'agentlog'
import { traceLog } from 'agentlog/otel'
import { memoryTracing, named, outline, shapes } from './helpers.js'

const test = suite('otel/subagents')

let clockMs = Date.UTC(2026, 3, 1)

/** A session's log from [type, fields] steps: ids, seq and times (1 ms apart) filled in. */
const logOf = (session_id: string, steps: [string, Record<string, unknown>][]): AgentEvent[] =>
  steps.map(([type, fields], i) => {
    const { metadata = {}, ...rest } = fields as { metadata?: Record<string, unknown> }
    return { id: `${session_id}-${i + 1}`, created_at: new Date(clockMs++).toISOString(), metadata: { ...metadata, seq: i + 1 }, type, ...rest } as unknown as AgentEvent
  })

const usage = { input_tokens: 3, output_tokens: 2, cache_input_tokens: 0, cache_creation_input_tokens: 0 }

/** A reply that calls `tool` once (running `child` when given) and then answers. */
const callingReply = (session_id: string, agent: string, tool: string, child: string | null, parent?: { session_id: string; reply_id: string; tool_call_id: string }) => {
  const reply_id = `${session_id}-reply`
  const call = { reply_id, tool_call_id: `${session_id}-call` }
  return logOf(session_id, [
    ['USER_MESSAGE', { msg: { id: `${session_id}-m`, name: 'user', role: 'user', content: 'go', metadata: {}, created_at: '2026-04-01T00:00:00.000Z', finished_at: null, finished_reason: null, structured_output: null, error: null } }],
    ['REPLY_START', { session_id, reply_id, name: agent, role: 'assistant', ...(parent ? { metadata: { parent } } : {}) }],
    ['MODEL_CALL_START', { reply_id, model_name: 'm' }],
    ['TOOL_CALL_START', { ...call, tool_call_name: tool }],
    ['TOOL_CALL_END', call],
    ['MODEL_CALL_END', { reply_id, ...usage, finished_reason: 'completed' }],
    ['TOOL_RESULT_START', { ...call, tool_call_name: tool, ...(child ? { metadata: { child_session_id: child } } : {}) }],
    ['TOOL_RESULT_TEXT_DELTA', { ...call, delta: 'done' }],
    ['TOOL_RESULT_END', { ...call, state: 'success' }],
    ['MODEL_CALL_START', { reply_id, model_name: 'm' }],
    ['MODEL_CALL_END', { reply_id, ...usage, finished_reason: 'completed' }],
    ['REPLY_END', { session_id, reply_id, finished_reason: 'completed', error: null }],
  ])
}

const tree = () => {
  const root = callingReply('root', 'Lead', 'researcher', 'kid')
  const kid = callingReply('kid', 'Researcher', 'fetcher', 'grandkid', { session_id: 'root', reply_id: 'root-reply', tool_call_id: 'root-call' })
  const grandkid = callingReply('grandkid', 'Fetcher', 'http_get', null, { session_id: 'kid', reply_id: 'kid-reply', tool_call_id: 'kid-call' })
  return { root, kid, grandkid }
}

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

test('a child log without its parent\'s log is traced as a root of its own', () => {
  const { kid } = tree()
  const otel = memoryTracing()
  traceLog(kid, { tracer: otel.tracer })
  const [researcher] = named(otel.spans(), 'invoke_agent Researcher')
  assert.is(researcher.parentSpanContext, undefined)
})

test.run()
