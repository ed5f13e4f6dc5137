// Issue 28 item 8: two sub-agents both waiting on a call named `call_0` (call ids are unique per
// reply only) are two AG-UI interrupts, keyed by session and call, and one resume answers both, each
// where it waits; POST /input on the root names the session the same way (a bare `call_0` is ambiguous).
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { agentTool, callTool, createHub, createServer, memoryStore, say, scriptedModel, type AgentEvent, type UserConfirmResultEvent } from '../../../lib/index.js'
import { planRun } from '../../../lib/server/agui/fromAgUi.js'
import { descendantInterrupts } from '../../../lib/server/agui/toAgUi.js'
import { descendantsOf } from '../../../lib/server/agui/tree.js'
import { probe } from '../../helpers/fixtures.js'
import { askingTool } from '../../helpers/hitl.js'
import { answering } from '../../subagents/helpers/hubTree.js'

/** A lead that runs two helpers at once, each asking before `delete_file` with the call id `call_0`. */
const twoHelpers = () => {
  const helper = agentTool({ name: 'helper', description: 'H', concurrencySafe: true, agent: () => ({ name: 'Helper', tools: [askingTool(probe())], model: answering(callTool('call_0', 'delete_file', { path: '/a' }), 'Helped.') }) })
  const lead = scriptedModel([(request) => (JSON.stringify(request.messages).includes('"tool_result"') ? say('Both done.') : [...callTool('h1', 'helper', { task: 'a' }), ...callTool('h2', 'helper', { task: 'b' })])], { onExhausted: 'repeat-last' })
  const store = memoryStore()
  return { store, hub: createHub({ store, sweepMs: false, agent: () => ({ name: 'Lead', tools: [helper], model: lead }) }) }
}

test('two sub-agents waiting on call_0: two interrupts with distinct ids; one resume answers each in its own session', async () => {
  const { hub } = twoHelpers()
  const { session_id } = await hub.create()
  await hub.session(session_id).reply('go')
  const waiting = await hub.session(session_id).waiting()
  assert.equal(waiting.map((c) => c.id), ['call_0', 'call_0'])
  const state = await hub.session(session_id).state()
  const descendants = await descendantsOf(hub, session_id, state)
  const interrupts = descendantInterrupts(descendants.asks)
  assert.is(new Set(interrupts.map((i) => i.id)).size, 2, 'the interrupts have distinct ids')
  const plan = planRun(state, { threadId: session_id, runId: 'r', messages: [], resume: [
    { interruptId: interrupts[0].id, status: 'resolved', payload: { approved: true } },
    { interruptId: interrupts[1].id, status: 'resolved', payload: { approved: false } },
  ] } as never, undefined, descendants)
  assert.is(plan.kind, 'input')
  const inputs = plan.kind === 'input' ? [...(plan.before ?? []), plan.input] as UserConfirmResultEvent[] : []
  const byReply = new Map(descendants.asks.map((a) => [a.reply_id, a.session_id]))
  assert.equal(inputs.map((e) => [byReply.get(e.reply_id), e.confirm_results.map((r) => r.confirmed)]), [[interrupts[0].metadata?.session_id, [true]], [interrupts[1].metadata?.session_id, [false]]])
  await hub.close()
})

test('POST /input on the root: a bare call_0 waiting in two sub-agents is refused INVALID_INPUT; { tool_call_id, session_id } answers each where it waits', async () => {
  const { hub, store } = twoHelpers()
  const handler = createServer({ hub })
  const input = (body: unknown) => handler(new Request(`http://localhost/sessions/${session_id}/input`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }))
  const { session_id } = await hub.create()
  await hub.session(session_id).reply('go')
  const [first, second] = await hub.session(session_id).waiting()
  const bare = await input({ approve: 'call_0' })
  assert.is(bare.status, 400)
  assert.is(((await bare.json()) as { code: string }).code, 'INVALID_INPUT')
  const approved = await input({ approve: { tool_call_id: 'call_0', session_id: first.session_id } })
  assert.is(approved.status, 200)
  const denied = await input({ deny: { tool_call_id: 'call_0', session_id: second.session_id, reason: 'not this one' } })
  assert.is(denied.status, 200)
  const confirmed = async (id: string) => ((await store.read(id)).find((e): e is AgentEvent & UserConfirmResultEvent => e.type === 'USER_CONFIRM_RESULT'))?.confirm_results[0].confirmed
  assert.is(await confirmed(first.session_id), true)
  assert.is(await confirmed(second.session_id), false)
  await hub.close()
})

test.run()
