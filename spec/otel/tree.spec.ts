// instrument() on a tree of agents (issue 21's agentTool): every sub-agent, at any depth, is traced
// as its call starts it, without attaching it by hand, so the live trace of the tree is one trace
// and equals the trace traceLog rebuilds from the tree's logs; a Stop of the root shows on every
// descendant; a sub-agent whose reply is over, or the whole tree after stop(), is no longer followed.
import { copyFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { agentTool, callTool, counterClock, createAgent, createHub, memoryStore, say, scriptedModel, usage, type Agent, type Tool } from 'agentlog'
import { instrument, traceLog } from 'agentlog/otel'
import { fileLog } from '../../lib/node.js'
import { probe, slowTool, type ToolProbe } from '../helpers/fixtures.js'
import { askingTool } from '../helpers/hitl.js'
import { tempDir } from '../log/helpers/files.js'
import { treeOf } from '../helpers/tree.js'
import { memoryTracing, named, outline, sortedShapes, until } from './helpers.js'

const test = suite('otel/tree')

/** A model that makes its call when the last message is the user's, and answers once it has the result (again at each new message). */
const model = ([calls, answer]: ReturnType<typeof callTool>[]) =>
  scriptedModel([(request) => (JSON.stringify(request.messages.at(-1)).includes('"tool_result"') ? answer : calls)], { onExhausted: 'repeat-last' })

/** Lead's options: Lead -> Mid (research) -> Leaf (dig) running `tool`; with `dir`, every sub-agent's log a file there. */
const lead = (tool: Tool, dir?: string) => {
  const logOf = dir ? { log: (id: string) => fileLog(join(dir, `${id}.jsonl`)) } : {}
  const leaf = agentTool({
    name: 'dig', description: 'Digs', ...logOf,
    agent: { name: 'Leaf', clock: counterClock('leaf'), tools: [tool], model: model([[...callTool('s1', tool.name, { x: 'a', path: '/a' }), usage(2, 1)], [...say('Found.'), usage(2, 1)]]) },
  })
  const mid = agentTool({
    name: 'research', description: 'Researches', ...logOf,
    agent: { name: 'Mid', clock: counterClock('mid'), tools: [leaf], model: model([[...callTool('m1', 'dig', { task: 'dig' }), usage(3, 1)], [...say('Dug.'), usage(3, 1)]]) },
  })
  return { name: 'Lead', tools: [mid], model: model([[...callTool('c1', 'research', { task: 'go' }), usage(4, 1)], [...say('Done.'), usage(4, 1)]]) }
}

const tree = (tool: Tool, dir?: string) =>
  createAgent({ ...lead(tool, dir), clock: counterClock('lead'), ...(dir && { log: fileLog(join(dir, 'root.jsonl')) }) })

const rebuilt = (root: Agent) => {
  const otel = memoryTracing()
  traceLog(treeOf(root).map((agent) => agent.log), { tracer: otel.tracer })
  return otel.spans()
}

const NESTED = [
  'invoke_agent Lead',
  '  chat scripted',
  '  execute_tool research',
  '    invoke_agent Mid',
  '      chat scripted',
  '      execute_tool dig',
  '        invoke_agent Leaf',
  '          chat scripted',
  '          execute_tool slow',
]

test('instrument(root) traces every sub-agent as its call starts it: one trace, each child under its call, equal to the trace rebuilt from the logs', async () => {
  const root = tree(slowTool(probe(), { ms: 1 }))
  const otel = memoryTracing()
  const instrumentation = instrument(root, { tracerProvider: otel.provider })
  await root.reply('go')
  instrumentation.stop()
  const live = otel.spans()
  assert.equal(outline(live), [...NESTED, '          chat scripted', '      chat scripted', '  chat scripted'])
  assert.is(new Set(live.map((s) => s.spanContext().traceId)).size, 1, 'the whole tree is one trace')
  const [dig] = named(live, 'execute_tool dig')
  const [leaf] = named(live, 'invoke_agent Leaf')
  assert.is(leaf.parentSpanContext?.spanId, dig.spanContext().spanId)
  assert.equal(sortedShapes(live), sortedShapes(rebuilt(root)), 'live spans equal the spans rebuilt from the tree\'s logs')
})

test('instrument(root) stops following a sub-agent once its reply ends, and the whole tree once stopped', async () => {
  const p = probe()
  const root = tree(slowTool(p, { ms: 1 }))
  const otel = memoryTracing()
  const instrumentation = instrument(root, { tracerProvider: otel.provider })
  await root.reply('go')
  const traced = otel.spans().length
  assert.is(named(otel.spans(), 'invoke_agent Leaf').length, 1, 'the leaf was followed while its call ran')
  const [mid] = root.children()
  const [leaf] = mid.children()
  // Used again by hand outside any call: no longer a sub-agent of a running call, nothing kept for it.
  await leaf.reply('again')
  assert.is(p.started.length, 2, 'the leaf ran its tool again')
  assert.is(otel.spans().length, traced, 'a finished sub-agent is not followed')
  await root.reply('again')
  assert.is(otel.spans().length, traced * 2, 'the new call\'s sub-agents are followed again (new ones)')
  instrumentation.stop()
  await root.reply('once more')
  assert.is(otel.spans().length, traced * 2, 'nothing after stop(), at any depth')
})

test('a Stop of the root ends every descendant\'s spans interrupted, with the stop event, nested as they ran', async () => {
  const p: ToolProbe = probe()
  const root = tree(slowTool(p, { ms: 60_000 }))
  const otel = memoryTracing()
  const instrumentation = instrument(root, { tracerProvider: otel.provider })
  const running = root.reply('go')
  await until(() => p.started.length > 0, 'the leaf\'s tool to start')
  await root.interrupt()
  const reply = await running
  assert.is(reply.finished_reason, 'interrupted')
  instrumentation.stop()
  const live = otel.spans()
  assert.equal(outline(live), NESTED)
  for (const span of [...named(live, 'invoke_agent Lead'), ...named(live, 'invoke_agent Mid'), ...named(live, 'invoke_agent Leaf')]) {
    assert.equal(span.attributes['gen_ai.response.finish_reasons'], ['interrupted'], `${span.name} ends interrupted`)
    const stops = span.events.filter((e) => e.name === 'agentlog.interrupt')
    assert.is(stops.length, 1, `${span.name} records the stop`)
    assert.is(stops[0].attributes?.['agentlog.interrupt.source'], 'signal')
  }
  for (const name of ['execute_tool research', 'execute_tool dig', 'execute_tool slow'])
    assert.is(named(live, name)[0].attributes['agentlog.tool.result_state'], 'interrupted', `${name} ends interrupted`)
  assert.equal(sortedShapes(live), sortedShapes(rebuilt(root)), 'live spans equal the spans rebuilt from the tree\'s logs')
})

test('a tree reopened from its logs while parked: the revived sub-agents are followed, and the answer is traced at every depth', async () => {
  const dir = tempDir()
  const first = tree(askingTool(probe()), dir)
  await first.reply('go')
  assert.is(first.children()[0].children()[0].state.status, 'paused')
  await first.close()
  // The next process: the sub-agents reopen with the root, before anything is instrumented.
  const root = tree(askingTool(probe()), dir)
  const otel = memoryTracing()
  const instrumentation = instrument(root, { tracerProvider: otel.provider })
  assert.is(otel.spans().length, 0, 'nothing is emitted on attach')
  const reply = await root.approve('s1')
  assert.is(reply.finished_reason, 'completed')
  instrumentation.stop()
  const live = otel.spans()
  for (const name of ['Lead', 'Mid', 'Leaf']) {
    const [segment] = named(live, `invoke_agent ${name}`)
    assert.ok(segment, `${name}'s answered segment is traced`)
    assert.is(segment.attributes['agentlog.reply.segment'], 1)
  }
  assert.is(named(live, 'execute_tool delete_file').length, 1, 'the approved call runs in the leaf\'s traced segment')
  await root.close()
})

test('a tree a crash cut, reopened from its logs: every cut reply is emitted closed (crash_recovery), nested, equal to the trace rebuilt from the logs', async () => {
  const dir = tempDir()
  const p = probe()
  const first = tree(slowTool(p, { ms: 60_000 }), dir)
  const replied = first.reply('go')
  await until(() => p.started.length > 0, 'the leaf\'s tool to start')
  // The files as a SIGKILL would leave them: every log of the tree ends inside a running reply.
  const after = tempDir()
  for (const name of readdirSync(dir).filter((f) => f.endsWith('.jsonl'))) copyFileSync(join(dir, name), join(after, name))
  await first.interrupt()
  await replied
  await first.close()
  const root = tree(slowTool(probe(), { ms: 60_000 }), after)
  const otel = memoryTracing()
  const instrumentation = instrument(root, { tracerProvider: otel.provider })
  instrumentation.stop()
  const live = otel.spans()
  assert.equal(outline(live), NESTED)
  for (const span of live.filter((s) => s.name.startsWith('invoke_agent')))
    assert.is(span.events.find((e) => e.name === 'agentlog.interrupt')?.attributes?.['agentlog.interrupt.source'], 'crash_recovery', `${span.name} was closed by the recovery`)
  assert.equal(sortedShapes(live), sortedShapes(rebuilt(root)), 'live spans equal the spans rebuilt from the tree\'s logs')
  await root.close()
})

test('instrument(hub): the sub-agents of a hub session are followed too, nested under their calls', async () => {
  const hub = createHub({ store: memoryStore(), agent: () => lead(slowTool(probe(), { ms: 1 })) })
  const otel = memoryTracing()
  const instrumentation = instrument(hub, { tracerProvider: otel.provider })
  const opened: Agent[] = []
  const unobserve = hub.onAgent!((agent) => opened.push(agent))
  const { session_id } = await hub.create()
  await hub.session(session_id).reply('go')
  instrumentation.stop()
  unobserve()
  const live = otel.spans()
  assert.equal(outline(live), [...NESTED, '          chat scripted', '      chat scripted', '  chat scripted'])
  const [root] = opened.filter((agent) => agent.session_id === session_id)
  assert.equal(sortedShapes(live), sortedShapes(rebuilt(root)), 'live spans equal the spans rebuilt from the tree\'s logs')
  await hub.close()
})

test.run()
