// agentlog on both ends of A2A, each end its own process (`agentlog serve --a2a`): an approval
// raised one and two processes away waits in the lead's tree and is answered from there; a Stop of
// the lead stops the whole tree across the processes (each remote log ends REPLY_END(interrupted)).
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { callTool, createAgent, say, scriptedModel, type AgentState } from '../../lib/index.js'
import { a2aAgent, remoteContextOf } from '../../lib/a2a.js'
import { serveA2a, type Served } from './processes.js'

const test = suite('a2a/twoEnds')

const leadOf = async (url: string, task: string) =>
  createAgent({ name: 'lead', model: scriptedModel([[...callTool('w-1', 'worker', { task })], [...say('All done.')]]), tools: [await a2aAgent({ url, name: 'worker' })] })
const sessionsOf = async (url: string) => ((await (await fetch(`${url}/sessions`)).json()) as { items: { session_id: string }[] }).items.map((s) => s.session_id)
const stateOf = async (url: string, id: string) => (await (await fetch(`${url}/sessions/${id}`)).json()) as AgentState
const until = async (check: () => Promise<boolean>, ms = 10_000) => {
  const started = Date.now()
  while (!(await check())) {
    if (Date.now() - started > ms) throw new Error('timed out')
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}
const endedInterrupted = async (url: string, id: string) => {
  const state = await stateOf(url, id)
  return state.status === 'idle' && state.context.at(-1)?.finished_reason === 'interrupted'
}

let b: Served
let c: Served
let relay: Served
test.before(async () => {
  ;[b, c] = await Promise.all([serveA2a(), serveA2a()])
  relay = await serveA2a({ AGENTLOG_A2A_NEXT: c.url })
})
test.after(async () => {
  await Promise.all([b, c, relay].map((s) => s?.close()))
})

test('an approval raised in the other process waits in the lead\'s tree as remote_approval; approve there runs the remote tool', async () => {
  const lead = await leadOf(b.url, 'remove /x')
  const parked = await lead.reply('go')
  const [call] = parked.waiting_for
  assert.is(call.name, 'remote_approval')
  assert.is(call.state, 'asking')
  assert.match(JSON.parse(call.input).question, 'remove')
  const done = await lead.approve(call)
  assert.is(done.text, 'All done.')
  const context = remoteContextOf(lead.children()[0].session_id)
  const remote = await stateOf(b.url, context)
  assert.is(remote.status, 'idle')
  const results = remote.context.at(-1)!.content.filter((x) => x.type === 'tool_result')
  assert.equal(results.map((r) => [r.name, r.state]), [['remove', 'success']])
})

test('an approval raised two processes away (lead → relay → worker) is answered from the lead, and every log ends completed', async () => {
  const lead = await leadOf(relay.url, 'relay remove /x')
  const before = new Set(await sessionsOf(c.url))
  const parked = await lead.reply('go')
  const [call] = parked.waiting_for
  assert.is(call.name, 'remote_approval')
  assert.is(call.state, 'asking')
  assert.match(JSON.parse(call.input).question, /remove\(\{"path":"\/x"\}\)/, 'the far question, relayed by the middle process')
  const done = await lead.approve(call)
  assert.is(done.text, 'All done.')
  const [far] = (await sessionsOf(c.url)).filter((id) => !before.has(id))
  const worker = await stateOf(c.url, far)
  assert.equal(worker.context.at(-1)!.content.filter((x) => x.type === 'tool_result').map((r) => [r.name, r.state]), [['remove', 'success']])
  assert.is((await stateOf(relay.url, remoteContextOf(lead.children()[0].session_id))).context.at(-1)!.finished_reason, 'completed')
})

test('Stop of the lead stops the tree across both processes: each remote log ends REPLY_END(interrupted)', async () => {
  const lead = await leadOf(relay.url, 'relay count')
  const before = new Set(await sessionsOf(c.url))
  const run = lead.reply('go')
  // The far worker streams (the relay's own text comes only after it): the whole tree runs.
  let far = ''
  await until(async () => {
    ;[far = ''] = (await sessionsOf(c.url)).filter((id) => !before.has(id))
    return far !== '' && (await stateOf(c.url, far)).reply_msg?.content.some((x) => x.type === 'text') === true
  })
  await lead.interrupt()
  assert.is((await run).finished_reason, 'interrupted', 'the lead stops at once')
  const middle = remoteContextOf(lead.children()[0].session_id)
  await until(() => endedInterrupted(relay.url, middle))
  await until(() => endedInterrupted(c.url, far))
})

test.run()
