// Issue 28 item 17: a remote tree is a local tree. A sub-agent two and three levels down asks for
// approval, is denied, waits for an external result, or the paused tree is interrupted: every kind of
// agent lists the same deepest call in `waiting_for`, with the session it waits in (not the root's),
// takes that very object (a CallRef) to answer it, and resolves to the same resumed reply.
import * as assert from 'uvu/assert'
import { outputText, type AgentState, type Block, type Msg, type Reply } from '../../lib/index.js'
import type { Subject } from './drivers.js'

const blockView = (block: Block): string => {
  switch (block.type) {
    case 'text': return `text ${block.text}`
    case 'tool_call': return `tool_call ${block.name} ${block.state}`
    case 'tool_result': return `tool_result ${block.name} ${block.state} ${JSON.stringify(outputText(block.output).replace(/\s+/g, ' ').trim())}`
    default: return block.type
  }
}
const msgView = (msg: Msg) => `${msg.role} ${msg.finished_reason ?? 'open'}: ${msg.content.map(blockView).join(' | ')}`

/** A paused reply as a user sees it: the calls its tree waits for, and whether each names a session other than the root's. */
const pausedView = async (subject: Subject, reply: Reply) => {
  const own = (await subject.state()).session_id
  return {
    message: msgView(reply),
    waiting_for: reply.waiting_for.map((call) => `${call.name} ${call.state} ${typeof call.session_id === 'string' && call.session_id !== own ? 'in a sub-agent' : 'own'}`),
  }
}
const stateView = (state: AgentState) => ({ status: state.status, waiting_for: state.waiting_for.map((c) => `${c.name} ${c.state}`), last: state.context.at(-1) && msgView(state.context.at(-1)!) })

const delegate = (depth: number, task: string) => `${'delegate '.repeat(depth)}${task}`

export const treeScenarios = [
  ...[2, 3].map((depth) => ({
    name: `tree: a sub-agent at depth ${depth} asks; waiting_for names the asking call in its session, approve(that call) resumes the root to its end`,
    async run(subject: Subject) {
      const paused = await subject.reply(delegate(depth, 'ask /a'))
      const done = await subject.approve(paused.waiting_for[0])
      return { paused: await pausedView(subject, paused), done: msgView(done), text: done.text, state: stateView(await subject.state()) }
    },
    expect(o: any) {
      assert.equal(o.paused.waiting_for, ['delete_file asking in a sub-agent'])
      assert.match(o.paused.message, /^assistant open: tool_call delegate submitted \| tool_result delegate running/)
      assert.match(o.done, /^assistant completed: tool_call delegate finished \| tool_result delegate success "done" \| text done$/)
      assert.is(o.text, 'done')
      assert.is(o.state.status, 'idle')
    },
  })),
  {
    name: 'tree: a denial at depth 2 (with the call of waiting_for) reaches the sub-agent; the root ends',
    async run(subject: Subject) {
      const paused = await subject.reply(delegate(2, 'ask /a'))
      const done = await subject.deny(paused.waiting_for[0], 'not that one')
      return { paused: await pausedView(subject, paused), done: msgView(done), state: stateView(await subject.state()) }
    },
    expect(o: any) {
      assert.equal(o.paused.waiting_for, ['delete_file asking in a sub-agent'])
      assert.match(o.done, /^assistant completed: .* \| text done$/)
      assert.is(o.state.status, 'idle')
    },
  },
  {
    name: "tree: an external call at depth 2 gets the caller's result through submitResult(call of waiting_for)",
    async run(subject: Subject) {
      const paused = await subject.reply(delegate(2, 'ext cats'))
      const done = await subject.submitResult(paused.waiting_for[0], 'meow')
      return { paused: await pausedView(subject, paused), done: msgView(done), state: stateView(await subject.state()) }
    },
    expect(o: any) {
      assert.equal(o.paused.waiting_for, ['lookup submitted in a sub-agent'])
      assert.match(o.done, /^assistant completed: .* \| text done$/)
      assert.is(o.state.status, 'idle')
    },
  },
  {
    name: 'tree: USER_INTERRUPT on a tree paused at depth 2 closes it: the root ends interrupted, nothing waits',
    async run(subject: Subject) {
      const paused = await subject.reply(delegate(2, 'ask /a'))
      await subject.interrupt()
      return { paused: await pausedView(subject, paused), state: stateView(await subject.state()) }
    },
    expect(o: any) {
      assert.equal(o.paused.waiting_for, ['delete_file asking in a sub-agent'])
      assert.is(o.state.status, 'idle')
      assert.equal(o.state.waiting_for, [])
      assert.match(o.state.last, /^assistant interrupted: tool_call delegate finished \| tool_result delegate interrupted/)
    },
  },
]
