// How a sub-agent's text reaches its parent's call: the deltas of one task as one chunk, a fast
// stream gathered into at most one chunk per interval, a slow one passed on as it comes, and no
// text lost to that batching when a Stop lands between the child's deltas and the chunk.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { sleep } from '../../lib/core/abort.js'
import {
  agentTool, callTool, counterClock, createAgent, INTERRUPTION_REMINDER, outputText, say, scriptedModel, subagentStoppedReminder,
  type Agent, type ChatModel, type OutputEvent,
} from '../../lib/index.js'
import { probe } from '../helpers/fixtures.js'
import { askingTool } from '../helpers/hitl.js'
import { checkTree } from '../helpers/tree.js'

const test = suite('subagents/textStream')

const WORDS = ['The ', 'child ', 'found ', 'this.']
const TEXT = WORDS.join('')

/** A model that streams WORDS in one task (one network read), then waits until it is stopped. */
const burstThenWait: ChatModel = {
  name: 'burst',
  async *stream(_request, { signal }) {
    for (const delta of WORDS) yield { type: 'text', delta }
    await sleep(60_000, signal)
  },
}

const lead = (child: ChatModel) => createAgent({
  name: 'Lead', clock: counterClock('l'),
  tools: [agentTool({ name: 'research', description: 'Researches', agent: { name: 'Researcher', clock: counterClock('r'), model: child } })],
  model: scriptedModel([[...callTool('c1', 'research', { task: 'go' })], [...say('Noted.')]]),
})

/** The deltas of the call's result in the parent's log, in order. */
const callDeltas = (parent: Agent, tool_call_id: string) =>
  parent.log.flatMap((e) => (e.type === 'TOOL_RESULT_TEXT_DELTA' && e.tool_call_id === tool_call_id ? [e.delta] : []))

/** The child's text in its own log. */
const childText = (parent: Agent) =>
  (parent.children()[0]?.log ?? []).flatMap((e) => (e.type === 'TEXT_BLOCK_DELTA' ? [e.delta] : [])).join('')

/** True on the child's event that completes its burst (a descendant's event carries its session_id). */
const burstDone = (parent: Agent, event: OutputEvent) =>
  event.type === 'TEXT_BLOCK_DELTA' && event.metadata.session_id !== undefined && childText(parent) === TEXT

test("a Stop of the parent between the child's deltas and their chunk: the call keeps the child's text exactly, then the interruption", async () => {
  for (const way of ['interrupt()', 'break'] as const) {
    const root = lead(burstThenWait)
    let heldAtStop: string[] | null = null
    for await (const event of root.replyStream('go', { descendants: true })) {
      if (heldAtStop || !burstDone(root, event)) continue
      heldAtStop = callDeltas(root, 'c1')
      if (way === 'break') break
      await root.interrupt()
    }
    assert.ok(heldAtStop, `${way}: the child streamed its burst`)
    assert.is.not(heldAtStop!.join(''), TEXT, `${way}: the Stop landed before the chunk reached the call`)
    const deltas = callDeltas(root, 'c1')
    assert.is(deltas.slice(0, -1).join(''), TEXT, `${way}: the call holds the child's text exactly`)
    assert.is(deltas.at(-1), INTERRUPTION_REMINDER)
    assert.is(root.children()[0].log.at(-1)!.type, 'REPLY_END')
    assert.is(root.state.status, 'idle')
    checkTree(root)
  }
})

test("stopping the child alone between its deltas and their chunk: the call's result is the child's text exactly, then the reminder", async () => {
  const root = lead(burstThenWait)
  let stopped = false
  for await (const event of root.replyStream('go', { descendants: true })) {
    if (stopped || !burstDone(root, event)) continue
    stopped = true
    assert.is.not(callDeltas(root, 'c1').join(''), TEXT, 'the Stop landed before the chunk reached the call')
    await root.children()[0].interrupt()
  }
  assert.ok(stopped)
  assert.is(callDeltas(root, 'c1').join(''), `${TEXT}\n${subagentStoppedReminder('Researcher')}`)
  assert.is(root.state.status, 'idle')
  assert.match(root.log.at(-1)!.type, 'REPLY_END')
  checkTree(root)
})

/** A model that streams `n` deltas, each in a task of its own (one network read each). */
const onePerTask = (n: number): ChatModel => ({
  name: 'one-per-task',
  async *stream() {
    for (let i = 0; i < n; i++) {
      await new Promise((resolve) => setImmediate(resolve))
      yield { type: 'text', delta: `w${i} ` }
    }
  },
})
const textOf = (n: number) => Array.from({ length: n }, (_, i) => `w${i} `).join('')

const leadWith = (model: ChatModel, textIntervalMs?: number) => createAgent({
  name: 'Lead', clock: counterClock('l'),
  tools: [agentTool({ name: 'research', description: 'Researches', textIntervalMs, agent: { name: 'Researcher', clock: counterClock('r'), model } })],
  model: scriptedModel([[...callTool('c1', 'research', { task: 'go' })], [...say('Noted.')]]),
})

test("the child's deltas of one task become one delta of the call", async () => {
  const burst = lead(scriptedModel([[...say(TEXT, WORDS.length)]]))
  await burst.reply('go')
  assert.equal(callDeltas(burst, 'c1'), [TEXT])
  checkTree(burst)
})

test('a child streaming fast: its text reaches the call in at most one chunk per interval (default 16 ms), every word kept', async () => {
  const n = 400
  const root = leadWith(onePerTask(n))
  const started = performance.now()
  await root.reply('go')
  const elapsed = performance.now() - started
  const chunks = callDeltas(root, 'c1')
  assert.is(chunks.join(''), textOf(n))
  // One chunk at once, then one per 16 ms while the deltas keep coming, and the rest at the end.
  assert.ok(chunks.length <= Math.ceil(elapsed / 16) + 2, `${chunks.length} chunks in ${elapsed.toFixed(1)} ms`)
  checkTree(root)
})

test('textIntervalMs: 0 passes on the deltas of every task as one chunk of their own', async () => {
  const root = leadWith(onePerTask(50), 0)
  await root.reply('go')
  const chunks = callDeltas(root, 'c1')
  assert.is(chunks.length, 50)
  assert.is(chunks.join(''), textOf(50))
  checkTree(root)
})

test("a child streaming slower than the interval: each delta reaches the parent's follower before the child's next one", async () => {
  const paced = leadWith(scriptedModel([[...say(TEXT, WORDS.length)]], { chunkDelayMs: 30 }))
  const order: string[] = []
  for await (const event of paced.replyStream('go', { descendants: true })) {
    if (event.type === 'TEXT_BLOCK_DELTA' && event.metadata.session_id !== undefined) order.push(`child ${event.delta}`)
    if (event.type === 'TOOL_RESULT_TEXT_DELTA') order.push(`call ${event.delta}`)
  }
  const childDeltas = order.filter((line) => line.startsWith('child ')).map((line) => line.slice('child '.length))
  assert.is(childDeltas.length, WORDS.length)
  assert.is(childDeltas.join(''), TEXT)
  assert.equal(order, childDeltas.flatMap((delta) => [`child ${delta}`, `call ${delta}`]))
  checkTree(paced)
})

test('textIntervalMs must be a number of milliseconds, 0 or more', () => {
  for (const bad of [-1, Number.NaN, Infinity, '16' as unknown as number]) {
    try {
      agentTool({ name: 'r', description: 'r', textIntervalMs: bad, agent: { name: 'R', model: scriptedModel([]) } })
      assert.unreachable(`accepted ${String(bad)}`)
    } catch (error) {
      assert.is((error as { code?: string }).code, 'INVALID_OPTION', String(bad))
      assert.match((error as Error).message, 'textIntervalMs')
    }
  }
})

test("the call's result is recorded after the child's REPLY_END reached every listener of the child", async () => {
  const root = lead(scriptedModel([[...say(TEXT, WORDS.length)]], { chunkDelayMs: 2 }))
  const order: string[] = []
  root.events$.subscribe((e) => void (e.type === 'TOOL_RESULT_END' && order.push('parent TOOL_RESULT_END')))
  let listening = false
  for await (const event of root.replyStream('go', { descendants: true })) {
    if (listening || event.metadata.session_id === undefined) continue
    // A listener of the child that came after the call started (a page opening the child's session).
    listening = true
    root.children()[0].events$.subscribe((e) => void (e.type === 'REPLY_END' && order.push('child REPLY_END')))
  }
  assert.equal(order, ['child REPLY_END', 'parent TOOL_RESULT_END'])
  checkTree(root)
})

test("a child that parks in the task of its deltas: the call holds its text before it waits, and the rest after the approval", async () => {
  const tools = [askingTool(probe())]
  const child = scriptedModel([[...say(TEXT, WORDS.length), ...callTool('d1', 'delete_file', { path: '/tmp/a' })], [...say(' Deleted.')]])
  const root = createAgent({
    name: 'Lead', clock: counterClock('l'),
    tools: [agentTool({ name: 'research', description: 'Researches', agent: { name: 'Researcher', clock: counterClock('r'), tools, model: child } })],
    model: scriptedModel([[...callTool('c1', 'research', { task: 'go' })], [...say('Noted.')]]),
  })
  const parked = await root.reply('go')
  assert.equal(parked.waiting_for.map((c) => c.id), ['d1'])
  assert.is(callDeltas(root, 'c1').join(''), TEXT, 'the text before the pause reached the call before it waits')
  const reply = await root.approve(parked.waiting_for[0])
  assert.is(reply.finished_reason, 'completed')
  const result = root.state.context.flatMap((m) => m.content).find((b) => b.type === 'tool_result' && b.id === 'c1')
  assert.is(result && result.type === 'tool_result' ? outputText(result.output) : null, `${TEXT} Deleted.`)
  checkTree(root)
})

test.run()
