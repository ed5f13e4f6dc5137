// Context compaction (issue 14, part 3): before a model call whose estimated input is over the
// limit, the older context is summarized by a streamed, interruptible model call recorded as
// CONTEXT_COMPACTED; the model's next request starts with the summary; tool calls and their
// results are never split; an interrupted or failed compaction changes nothing; replay = state.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import {
  AgentError, callTool, checkLog, protocolProblems, replay, say, usage, UserMsg,
  type AgentEvent, type ChatModel, type ModelRequest, type Msg,
} from '../../lib/index.js'
import { sleep } from '../../lib/core/abort.js'
import { timeline } from '../../lib/cli/timeline.js'
import { checkInvariants, makeAgent, probe, slowTool, types } from '../helpers/fixtures.js'

const test = suite('compaction')
const SYS = 'You are helpful.'
/** The documented estimate: one token per 4 characters of the request's JSON. */
const estimate = (messages: Msg[]) => Math.ceil(JSON.stringify({ system: SYS, messages, tools: [] }).length / 4)
const textOf = (msg: Msg) => msg.content.map((b) => (b.type === 'text' ? b.text : '')).join('')
const compactions = (log: readonly AgentEvent[]) => log.filter((e): e is Extract<AgentEvent, { type: 'CONTEXT_COMPACTED' }> => e.type === 'CONTEXT_COMPACTED')

/** A summarizer that streams its summary in pieces and records each request and whether its signal fired. */
const summarizer = (summaries: string[], { hangFirst = false, fail = false } = {}) => {
  const requests: ModelRequest[] = []
  const aborted: boolean[] = []
  const model: ChatModel = {
    name: 'summarizer',
    async *stream(request, { signal }) {
      const n = requests.push(request) - 1
      signal.addEventListener('abort', () => { aborted[n] = true })
      if (fail) throw new Error('summarizer down')
      if (hangFirst && n === 0) await sleep(60_000, signal)
      const text = summaries[Math.min(n, summaries.length - 1)]
      yield { type: 'text', delta: text.slice(0, 3) }
      yield { type: 'text', delta: text.slice(3) }
      yield { type: 'usage', input_tokens: 50, output_tokens: 9 }
    },
  }
  return { model, requests, aborted }
}

const answers = Array.from({ length: 10 }, (_, i) => say(`Answer number ${i + 1}: ${'blah '.repeat(20)}`))

test('a long conversation compacts before the first model call whose estimate is over the limit, and the next request starts with the summary', async () => {
  const summary = summarizer(['Earlier: the user asked questions 1 to 3.', 'Earlier: questions 1 to 6.'])
  const limit = 700
  const { agent, model } = makeAgent(answers, [], { compaction: { maxContextTokens: limit, summarize: summary.model } })
  let first = -1
  for (let i = 1; i <= 8; i++) {
    const before = agent.state.context.length
    const logBefore = agent.log.length
    await agent.reply(UserMsg({ content: `Question ${i}?` }))
    const compacted = compactions(agent.log.slice(logBefore))
    if (first < 0) {
      const over = estimate(agent.state.context.slice(0, before + 1)) > limit
      assert.is(compacted.length, over ? 1 : 0, `reply ${i}: compacts exactly when the estimate is over the limit`)
      if (over) first = i
    }
  }
  assert.ok(first > 1, 'the conversation grew past the limit')
  const [c1, c2] = compactions(agent.log)
  assert.ok(c2, 'a second compaction once the limit was passed again')
  // The first compacted request: system, summary, then the kept recent segments (keepRecent 2).
  const request = model.requests[first - 1]
  const context = agent.state.context
  assert.is(request.messages[0].role, 'system')
  assert.is(request.messages[1].role, 'user')
  assert.match(textOf(request.messages[1]), 'Earlier: the user asked questions 1 to 3.')
  assert.equal(request.messages.slice(2).map((m) => m.id), context.slice(c1.covers.messages, 2 * first - 1).map((m) => m.id))
  assert.is(request.messages.length - 2, 2, 'two recent segments kept')
  // The summarizer saw what was covered, and nothing kept.
  const transcript = textOf(summary.requests[0].messages[1])
  assert.match(transcript, 'Question 1?')
  assert.not.match(transcript, `Question ${first}?`)
  assert.is(summary.requests[0].messages[0].role, 'system')
  assert.equal(summary.requests[0].tools, [])
  // The second summary covers the first one.
  assert.match(textOf(summary.requests[1].messages[1]), 'Earlier: the user asked questions 1 to 3.')
  assert.ok(c2.covers.messages > c1.covers.messages)
  // The full history stays in the context; the summarizing calls' usage is counted.
  assert.is(context.length, 16)
  assert.is(agent.state.usage.input_tokens, 50 * compactions(agent.log).length)
  assert.equal(checkLog(agent.log).violations, [])
  assert.equal(replay(agent.log, undefined, { strict: true }), agent.state)
  checkInvariants(agent)
})

test('inside a long ReAct reply the cut falls between rounds (reported usage decides), never between a tool call and its result', async () => {
  const p = probe()
  const summary = summarizer(['Rounds 1-3 looked things up.'])
  const turns = [1, 2, 3, 4, 5].map((k) => [...say(`Round ${k}.`), ...callTool(`c${k}`, 'slow', { x: String(k) }), usage(200 * k, 5)])
  const { agent, model } = makeAgent([...turns, [...say('Done.'), usage(300, 5)]], [slowTool(p, { ms: 1 })], {
    compaction: { maxContextTokens: 1000, keepRecent: 2, summarize: summary.model },
  })
  await agent.reply(UserMsg({ content: 'Look up five things.' }))
  const log = agent.log
  const [c] = compactions(log)
  assert.ok(c, 'compacted')
  const at = log.indexOf(c)
  assert.equal(types(log.slice(at - 1, at + 2)), ['TOOL_RESULT_END', 'CONTEXT_COMPACTED', 'MODEL_CALL_START'])
  assert.is(log.slice(0, at).filter((e) => e.type === 'MODEL_CALL_START').length, 5, 'after the call that reported 1000 input tokens, not before')
  assert.equal(c.covers, { messages: 1, blocks: 9 }, 'the user message and three rounds (text, call, result each)')
  const next = model.requests[5].messages
  assert.match(textOf(next[1]), 'Rounds 1-3 looked things up.')
  const rest = next[2]
  assert.is(rest.id, agent.state.context[1].id)
  assert.equal(rest.content.map((b) => b.type), ['text', 'tool_call', 'tool_result', 'text', 'tool_call', 'tool_result'])
  for (const msg of next) for (const b of msg.content) if (b.type === 'tool_result') assert.ok(msg.content.some((x) => x.type === 'tool_call' && x.id === b.id), `result ${b.id} keeps its call`)
  assert.equal(replay(JSON.parse(JSON.stringify(agent.log))), agent.state)
  assert.equal(checkLog(agent.log).violations, [])
  checkInvariants(agent)
})

test('an interrupt during compaction aborts the summarizing call and leaves the context as it was', async () => {
  const summary = summarizer(['S'], { hangFirst: true })
  const { agent, model } = makeAgent([say('One.'), say('Two.'), say('Three.')], [], { compaction: { maxContextTokens: 10, keepRecent: 1, summarize: summary.model } })
  await agent.reply(UserMsg({ content: 'first' }))
  assert.is(summary.requests.length, 0, 'a single message has nothing to cut')
  const stateBefore = agent.state
  const pending = agent.reply(UserMsg({ content: 'second' }))
  while (summary.requests.length === 0) await sleep(1)
  await agent.interrupt()
  const msg = await pending
  assert.is(msg.finished_reason, 'interrupted')
  assert.equal(summary.aborted, [true], 'the summarizing call was aborted')
  assert.equal(compactions(agent.log), [])
  assert.is(agent.state.compaction, null)
  assert.equal(agent.state.context.slice(0, 2), stateBefore.context)
  assert.is(model.requests.length, 1, 'no model call after the interrupt')
  assert.equal(types(agent.log).slice(-2), ['INTERRUPT_REQUESTED', 'REPLY_END'])
  checkInvariants(agent)
  // The next reply compacts normally.
  await agent.reply(UserMsg({ content: 'third' }))
  assert.is(compactions(agent.log).length, 1)
  assert.match(textOf(model.requests[1].messages[1]), 'S')
  checkInvariants(agent)
})

test('a failed compaction changes nothing: the model call goes ahead with the whole context', async () => {
  const summary = summarizer([], { fail: true })
  const { agent, model } = makeAgent([say('One.'), say('Two.')], [], { compaction: { maxContextTokens: 10, keepRecent: 1, summarize: summary.model } })
  await agent.reply(UserMsg({ content: 'first' }))
  const msg = await agent.reply(UserMsg({ content: 'second' }))
  assert.is(msg.finished_reason, 'completed')
  assert.is(summary.requests.length, 1)
  assert.equal(compactions(agent.log), [])
  assert.equal(model.requests[1].messages.slice(1).map((m) => m.id), agent.state.context.slice(0, 3).map((m) => m.id))
  checkInvariants(agent)
})

test("without a summarize model the agent's own model writes the summary", async () => {
  const { agent, model } = makeAgent([say('One.'), say('A short summary.'), say('Two.')], [], { compaction: { maxContextTokens: 10, keepRecent: 1 } })
  await agent.reply(UserMsg({ content: 'first' }))
  await agent.reply(UserMsg({ content: 'second' }))
  assert.is(model.requests.length, 3)
  assert.equal(model.requests[1].tools, [])
  assert.is(compactions(agent.log)[0].summary, 'A short summary.')
  assert.is(compactions(agent.log)[0].model_name, 'scripted')
  assert.match(textOf(model.requests[2].messages[1]), 'A short summary.')
})

test('bad compaction options are refused with INVALID_OPTION', () => {
  for (const compaction of [{}, { maxContextTokens: 0 }, { maxContextTokens: 10, keepRecent: 0 }, { maxContextTokens: 10, summarize: {} }, { maxContextTokens: 10, prompt: '' }, 'big']) {
    assert.throws(() => makeAgent([], [], { compaction: compaction as never }), (e: unknown) => e instanceof AgentError && e.code === 'INVALID_OPTION')
  }
})

test('a CONTEXT_COMPACTED that would split a tool call from its result, or come while the model streams, is ignored by the reducers and reported by the checkers', async () => {
  const p = probe()
  const { agent } = makeAgent([[...say('Let me see.'), ...callTool('c1', 'slow', { x: 'a' })], say('Done.')], [slowTool(p, { ms: 1 })])
  await agent.reply(UserMsg({ content: 'go' }))
  const log = agent.log
  const end = log.findIndex((e) => e.type === 'TOOL_RESULT_END')
  const reply_id = agent.state.reply_id!
  const compacted = (covers: { messages: number; blocks: number }, seq: number): AgentEvent => ({
    id: 'x', created_at: log[end].created_at, metadata: { seq }, type: 'CONTEXT_COMPACTED', reply_id, summary: 'S', model_name: 'm', covers,
    input_tokens: 0, output_tokens: 0, cache_input_tokens: 0, cache_creation_input_tokens: 0,
  })
  const restamp = (events: AgentEvent[]) => events.map((e, i) => ({ ...e, metadata: { ...e.metadata, seq: i + 1 } }))
  // Between the call (block 1) and its result (block 2): not a cut point.
  const split = restamp([...log.slice(0, end + 1), compacted({ messages: 1, blocks: 2 }, 0), ...log.slice(end + 1)])
  assert.is(replay(split).compaction, null)
  assert.match(checkLog(split).violations.map((v) => v.message).join('\n'), 'not a cut point')
  // Before the reply: a cut point, accepted; the full history stays in the context.
  const good = restamp([...log.slice(0, end + 1), compacted({ messages: 1, blocks: 0 }, 0), ...log.slice(end + 1)])
  assert.equal(replay(good).compaction?.messages, 1)
  assert.equal(replay(good).context, agent.state.context)
  assert.equal(checkLog(good).violations, [])
  assert.equal(protocolProblems(good), [])
  // While the model call is open: refused by the protocol check, ignored by the reducers.
  const open = log.findIndex((e) => e.type === 'TEXT_BLOCK_START')
  const streaming = restamp([...log.slice(0, open + 1), compacted({ messages: 1, blocks: 0 }, 0), ...log.slice(open + 1)])
  assert.match(protocolProblems(streaming).join('\n'), 'a model call is open')
  assert.is(replay(streaming).compaction, null)
})

test('the replay timeline shows a compaction with what it covers and its summary', async () => {
  const summary = summarizer(['They said hello.'])
  const { agent } = makeAgent([say('One.'), say('Two.')], [], { compaction: { maxContextTokens: 10, keepRecent: 1, summarize: summary.model } })
  await agent.reply(UserMsg({ content: 'first' }))
  await agent.reply(UserMsg({ content: 'second' }))
  const lines = timeline(agent.log).map((e) => e.text)
  assert.ok(lines.includes('context compacted (summarizer): 2 messages summarized as "They said hello."'), lines.join('\n'))
})

test.run()
