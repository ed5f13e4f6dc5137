// The scenarios every kind of agent must agree on (issue 22): streaming, stop in each form,
// approve / deny / edit, external results, errors, what reply() and the answers to a paused reply
// resolve to, and the state each kind shows at once afterwards. Each scenario observes what a user
// can see (ids and times left out, the text streamed before a stop masked); `agree` runs the list
// against drivers, checks the first one's observation against the reference behaviour, and requires
// the others to observe exactly the same.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { AbortError, AgentError, DEFAULT_INTERRUPT_TEXT, ModelError, outputText, type AgentEvent, type AgentState, type Block, type Msg, type OutputEvent, type Reply } from '../../lib/index.js'
import type { Driver, Subject } from './drivers.js'
import { treeScenarios } from './treeScenarios.js'

/** A block as a user reads it (the text of an interrupted message masked: how much streamed before the stop varies). */
const blockView = (block: Block, masked: boolean): string => {
  switch (block.type) {
    case 'text': return masked ? 'text' : `text ${block.text}`
    case 'tool_call': return `tool_call ${block.name} ${block.state} ${block.input}`
    case 'tool_result': return `tool_result ${block.name} ${block.state} ${JSON.stringify(outputText(block.output))}`
    default: return block.type
  }
}
const msgView = (msg: Msg): string => {
  const masked = msg.finished_reason === 'interrupted'
  return `${msg.role} ${msg.finished_reason ?? 'open'}: ${msg.content.map((b) => blockView(b, masked)).join(' | ')}`
}
const replyView = (reply: Reply) => ({
  message: msgView(reply),
  text: reply.text,
  waiting_for: reply.waiting_for.map((call) => `${call.name} ${call.state}`),
})
const stateView = (state: AgentState) => ({
  status: state.status,
  waiting_for: state.waiting_for.map((call) => `${call.name} ${call.state}`),
  context: state.context.map(msgView),
  reply_msg: state.reply_msg && msgView(state.reply_msg),
})
/** The types of a reply's events, each run of deltas as one (how many stream before a stop varies). */
const eventsView = (events: readonly AgentEvent[]): string[] => {
  const out: string[] = []
  for (const event of events) {
    const type = event.type === 'REPLY_END' ? `REPLY_END ${event.finished_reason}` : event.type === 'TOOL_RESULT_END' ? `TOOL_RESULT_END ${event.state}` : event.type
    if (type !== out.at(-1) || !type.endsWith('_DELTA')) out.push(type)
  }
  return out
}
/**
 * A stream with its sub-agents' events as (type, session) pairs, in order: the session's own events
 * untagged ("own"), each sub-agent named by the order its first event came in (its id differs in every run).
 */
const taggedView = (events: readonly AgentEvent[]): string[] => {
  const names = new Map<string, string>()
  return events.map((event) => {
    const tag = event.metadata.session_id
    if (typeof tag !== 'string') return `${event.type} own`
    if (!names.has(tag)) names.set(tag, `sub-agent ${names.size + 1}`)
    return `${event.type} ${names.get(tag)}`
  })
}
/** The blocks of a message without the text or output streamed (how much streams before a stop varies). */
const shapeView = (msg: Msg): string => `${msg.role} ${msg.finished_reason ?? 'open'}: ${msg.content.map((b) => (b.type === 'tool_call' || b.type === 'tool_result' ? `${b.type} ${b.name} ${b.state}` : b.type)).join(' | ')}`
/** The ids a session's log holds (replies, calls): different in every run, left out of messages. */
const idsOf = (log: readonly AgentEvent[]): string[] => {
  const ids = new Set<string>()
  for (const event of log) {
    for (const key of ['reply_id', 'tool_call_id'] as const) if (key in event) ids.add((event as Record<string, unknown>)[key] as string)
    if (event.type === 'REQUIRE_USER_CONFIRM' || event.type === 'REQUIRE_EXTERNAL_EXECUTION') for (const call of event.tool_calls) ids.add(call.id)
  }
  return [...ids].filter(Boolean).sort((a, b) => b.length - a.length)
}
/** A rejection as a user can tell it apart: its class, its code and its message (the session's ids left out). */
const failure = async (subject: Subject, work: Promise<unknown>) => {
  try {
    await work
    return 'resolved'
  } catch (error) {
    const message = idsOf(await subject.log()).reduce((text, id) => text.split(id).join('ID'), (error as Error).message)
    if (error instanceof ModelError) return `ModelError ${error.type}: ${message}`
    if (error instanceof AgentError) return `AgentError ${error.code}: ${message}`
    if (error instanceof AbortError) return 'AbortError'
    return `other: ${String(error)}`
  }
}
const collect = async (stream: AsyncIterable<OutputEvent>, onEvent: (event: OutputEvent) => void = () => {}) => {
  const events: OutputEvent[] = []
  for await (const event of stream) {
    events.push(event)
    onEvent(event)
  }
  return events
}
const after = async (subject: Subject) => ({ state: stateView(await subject.state()), log: eventsView(await subject.log()) })
/** The one call a paused reply waits for. */
const waiting = (reply: Reply) => reply.waiting_for[0].id

export interface Scenario {
  name: string
  run(subject: Subject): Promise<unknown>
  /** What the reference behaviour says (checked on the local agent's observation). */
  expect(observed: any): void
}

export const scenarios: Scenario[] = [
  {
    name: 'streaming: the events of a reply, reply() values, the state after',
    async run(subject) {
      const events = await collect(subject.replyStream('stream 5'))
      const streamed = events.flatMap((e) => (e.type === 'TEXT_BLOCK_DELTA' ? [e.delta] : [])).join('')
      const stateAfterStream = stateView(await subject.state())
      const reply = replyView(await subject.reply('hello'))
      return { events: eventsView(events), streamed, stateAfterStream, reply, ...(await after(subject)) }
    },
    expect(o) {
      assert.is(o.streamed, '0 1 2 3 4 ')
      assert.equal(o.events, ['REPLY_START', 'MODEL_CALL_START', 'TEXT_BLOCK_START', 'TEXT_BLOCK_DELTA', 'TEXT_BLOCK_END', 'MODEL_CALL_END', 'REPLY_END completed'])
      assert.is(o.stateAfterStream.status, 'idle')
      assert.equal(o.reply, { message: 'assistant completed: text ok: hello', text: 'ok: hello', waiting_for: [] })
      assert.is(o.state.status, 'idle')
    },
  },
  {
    name: 'stop by the signal: the stream ends with REPLY_END(interrupted); reply() resolves to the interruptText message or rejects with AbortError',
    async run(subject) {
      const controller = new AbortController()
      const events = await collect(subject.replyStream('stream 400', { signal: controller.signal }), (e) => { if (e.type === 'TEXT_BLOCK_DELTA') controller.abort() })
      const stateAfterStream = stateView(await subject.state())
      const second = new AbortController()
      void subject.nextDelta().then(() => second.abort())
      const reply = replyView(await subject.reply('stream 400', { signal: second.signal }))
      const third = new AbortController()
      void subject.nextDelta().then(() => third.abort())
      const rejected = await failure(subject, subject.reply('stream 400', { signal: third.signal, rejectOnInterrupt: true }))
      return { events: eventsView(events), stateAfterStream, reply, rejected, ...(await after(subject)) }
    },
    expect(o) {
      assert.is(o.events.at(-1), 'REPLY_END interrupted')
      assert.is(o.stateAfterStream.status, 'idle')
      assert.equal(o.reply, { message: `assistant interrupted: text`, text: DEFAULT_INTERRUPT_TEXT, waiting_for: [] })
      assert.is(o.rejected, 'AbortError')
      assert.is(o.state.status, 'idle')
      assert.is(o.state.context.filter((m: string) => m.startsWith('assistant interrupted')).length, 3)
    },
  },
  {
    name: 'stop by leaving the loop: the reply is interrupted and the state is idle',
    async run(subject) {
      const events: OutputEvent[] = []
      for await (const event of subject.replyStream('stream 400')) {
        events.push(event)
        if (event.type === 'TEXT_BLOCK_DELTA') break
      }
      return { events: eventsView(events), ...(await after(subject)) }
    },
    expect(o) {
      assert.is(o.events.at(-1), 'TEXT_BLOCK_DELTA')
      assert.is(o.state.status, 'idle')
      assert.is(o.state.context.at(-1), 'assistant interrupted: text')
      assert.is(o.log.at(-1), 'REPLY_END interrupted')
    },
  },
  {
    name: 'stop by interrupt(): while running (the stream yields the end) and while paused',
    async run(subject) {
      let interrupting: Promise<unknown> | null = null
      const events = await collect(subject.replyStream('stream 400'), (e) => { if (e.type === 'TEXT_BLOCK_DELTA') interrupting ??= subject.interrupt() })
      await interrupting
      const running = { events: eventsView(events), state: stateView(await subject.state()) }
      const paused = replyView(await subject.reply('ask /tmp/a'))
      await subject.interrupt()
      return { running, paused, ...(await after(subject)) }
    },
    expect(o) {
      assert.is(o.running.events.at(-1), 'REPLY_END interrupted')
      assert.is(o.running.state.status, 'idle')
      assert.equal(o.paused.waiting_for, ['delete_file asking'])
      assert.is(o.state.status, 'idle')
      assert.match(o.state.context.at(-1), /^assistant interrupted: .*tool_result delete_file interrupted/)
    },
  },
  {
    name: 'approve: reply() resolves to the paused message, approve() to the reply it resumed',
    async run(subject) {
      const paused = await subject.reply('ask /tmp/a')
      const stateWhilePaused = stateView(await subject.state())
      const resumed = replyView(await subject.approve(waiting(paused)))
      return { paused: replyView(paused), stateWhilePaused, resumed, ...(await after(subject)) }
    },
    expect(o) {
      assert.equal(o.paused, { message: 'assistant open: tool_call delete_file asking {"path":"/tmp/a"}', text: '', waiting_for: ['delete_file asking'] })
      assert.is(o.stateWhilePaused.status, 'paused')
      assert.equal(o.resumed.text, 'done')
      assert.match(o.resumed.message, /^assistant completed: tool_call delete_file \w+ \{"path":"\/tmp\/a"\} \| tool_result delete_file success "deleted \/tmp\/a" \| text done$/)
      assert.is(o.state.status, 'idle')
    },
  },
  {
    name: 'edit: approving with changed arguments runs the tool with them',
    async run(subject) {
      const paused = await subject.reply('ask /tmp/a')
      const resumed = replyView(await subject.approve(waiting(paused), { path: '/tmp/b' }))
      return { resumed, ...(await after(subject)) }
    },
    expect(o) {
      assert.match(o.resumed.message, /tool_call delete_file \w+ \{"path":"\/tmp\/b"\} \| tool_result delete_file success "deleted \/tmp\/b" \| text done$/)
    },
  },
  {
    name: 'deny with a reason: the call gets a denied result and the reply goes on',
    async run(subject) {
      const paused = await subject.reply('ask /tmp/a')
      const resumed = replyView(await subject.deny(waiting(paused), 'not that file'))
      return { resumed, ...(await after(subject)) }
    },
    expect(o) {
      assert.match(o.resumed.message, /tool_result delete_file denied .*not that file.* \| text done$/)
      assert.is(o.state.status, 'idle')
    },
  },
  {
    name: 'external results: the reply waits for the caller\'s result; submitResult() resolves to the reply it resumed',
    async run(subject) {
      const paused = await subject.reply('ext cats')
      const resumed = replyView(await subject.submitResult(waiting(paused), 'three cats'))
      return { paused: replyView(paused), resumed, ...(await after(subject)) }
    },
    expect(o) {
      assert.equal(o.paused.waiting_for, ['lookup submitted'])
      assert.match(o.resumed.message, /tool_result lookup success "three cats" \| text done$/)
      assert.is(o.state.status, 'idle')
    },
  },
  {
    name: 'sub-agents with descendants: the stream interleaves the sub-agent\'s events, tagged with its session, as they happened; the state holds only the session\'s own; leaving the loop stops the tree',
    async run(subject) {
      const events = await collect(subject.replyStream('delegate stream 3', { descendants: true }))
      const stateAfterStream = stateView(await subject.state())
      const stopped: OutputEvent[] = []
      for await (const event of subject.replyStream('delegate stream 400', { descendants: true })) {
        stopped.push(event)
        if (event.type === 'TEXT_BLOCK_DELTA' && event.metadata.session_id) break
      }
      const log = await subject.log()
      const state = await subject.state()
      // How many chunks carry the sub-agent's text to its call depends on timing (agentTool's
      // textIntervalMs throttle), so the views leave them out and compare the text they carry.
      const relayed = (list: readonly OutputEvent[]) => list.filter((e) => e.type === 'TOOL_RESULT_TEXT_DELTA' && e.metadata.session_id === undefined)
      const withoutRelay = (list: readonly OutputEvent[]) => list.filter((e) => !relayed([e]).length)
      return {
        events: taggedView(withoutRelay(events)),
        relayedText: relayed(events).map((e) => (e as { delta?: string }).delta ?? '').join(''),
        stateAfterStream,
        stopped: taggedView(withoutRelay(stopped)),
        taggedInLog: log.filter((e) => e.metadata.session_id !== undefined).length,
        status: state.status,
        lastMessage: shapeView(state.context.at(-1)!),
        lastEvent: eventsView(log).at(-1),
      }
    },
    expect(o) {
      const child = o.events.filter((e: string) => e.endsWith('sub-agent 1'))
      assert.equal(child, ['REPLY_START', 'MODEL_CALL_START', 'TEXT_BLOCK_START', 'TEXT_BLOCK_DELTA', 'TEXT_BLOCK_DELTA', 'TEXT_BLOCK_DELTA', 'TEXT_BLOCK_END', 'MODEL_CALL_END', 'REPLY_END'].map((t) => `${t} sub-agent 1`))
      assert.ok(o.events.every((e: string) => e.endsWith(' own') || e.endsWith(' sub-agent 1')), 'one sub-agent')
      // Its events come between the call's TOOL_RESULT_START and TOOL_RESULT_END.
      const at = (e: string) => o.events.indexOf(e)
      assert.ok(at('TOOL_RESULT_START own') < at('REPLY_START sub-agent 1') && at('REPLY_END sub-agent 1') < at('TOOL_RESULT_END own'), o.events.join(', '))
      assert.is(o.events.at(-1), 'REPLY_END own')
      assert.is(o.relayedText, '0 1 2 ', 'the sub-agent\'s text reached its call')
      assert.match(o.stateAfterStream.context.at(-1), /^assistant completed: tool_call delegate \w+ .* \| tool_result delegate success "0 1 2 " \| text done$/)
      assert.is(o.stopped.at(-1), 'TEXT_BLOCK_DELTA sub-agent 1')
      assert.is(o.taggedInLog, 0)
      assert.is(o.status, 'idle')
      assert.is(o.lastEvent, 'REPLY_END interrupted')
      assert.is(o.lastMessage, 'assistant interrupted: tool_call delegate finished | tool_result delegate interrupted')
    },
  },
  {
    name: 'errors: a failing model rejects reply() with ModelError; refused inputs reject with the same AgentError codes',
    async run(subject) {
      const model = await failure(subject, subject.reply('fail'))
      const stateAfterError = stateView(await subject.state())
      const notPaused = await failure(subject, subject.approve('c-none'))
      const paused = await subject.reply('ask /tmp/a')
      const whilePaused = await failure(subject, subject.reply('something else'))
      const unknownCall = await failure(subject, subject.approve('c-none'))
      await subject.interrupt()
      // The refusal is told once the reply has ended: a store that commits later (PostgreSQL) may not
      // hold the running reply's REPLY_START, whose id the message names, when the refusal comes.
      let refusal: Promise<unknown> | null = null
      await collect(subject.replyStream('stream 30'), (e) => { if (e.type === 'TEXT_BLOCK_DELTA') refusal ??= subject.reply('hello').then(() => 'resolved', (error) => ({ error })) })
      const settled = (await refusal) as { error: unknown } | string | null
      const whileRunning = await failure(subject, typeof settled === 'object' && settled ? Promise.reject(settled.error) : Promise.resolve(settled))
      return { model, stateAfterError, notPaused, paused: replyView(paused), whilePaused, unknownCall, whileRunning, ...(await after(subject)) }
    },
    expect(o) {
      assert.is(o.model, 'ModelError rate_limit: Too many requests')
      assert.is(o.stateAfterError.status, 'idle')
      assert.match(o.stateAfterError.context.at(-1), /^assistant error/)
      assert.match(o.notPaused, /^AgentError NOT_PAUSED/)
      assert.match(o.whilePaused, /^AgentError REPLY_PAUSED/)
      assert.match(o.unknownCall, /^AgentError UNKNOWN_CALL/)
      assert.match(o.whileRunning, /^AgentError REPLY_RUNNING/)
      assert.is(o.state.status, 'idle')
    },
  },
]


/** One test per scenario, run against every driver in turn; the first driver is the reference. */
export const agree = (name: string, drivers: Driver[], cleanUp: () => Promise<void> = async () => {}) => {
  const test = suite(name)
  test.after(async () => {
    await Promise.all(drivers.map((driver) => driver.close()))
    await cleanUp()
  })
  for (const scenario of [...scenarios, ...treeScenarios]) {
    test(scenario.name, async () => {
      const observed: unknown[] = []
      for (const driver of drivers) observed.push(await scenario.run(await driver.open()))
      const [reference, ...others] = observed
      scenario.expect(reference)
      others.forEach((other, i) => assert.equal(other, reference, `${drivers[i + 1].kind} agrees with the ${drivers[0].kind}`))
    })
  }
  test.run()
}
