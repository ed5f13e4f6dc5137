// Issue 30, point 5 and the tree points: the askUser tool parks the reply like an external tool;
// submitResult takes { choice } | { choices } | { text }, checked against the question (INVALID_INPUT
// otherwise, nothing recorded); it works from a sub-agent's call. A gentle stop of a tree stops each
// node at its own next step: a sub-agent that finished its step gives its call its real result.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { agentTool, askUser, callTool, checkLog, counterClock, createAgent, outputText, replay, say, scriptedModel, type Msg, type ToolResultBlock } from '../../lib/index.js'
import { probe, slowTool } from '../helpers/fixtures.js'

const test = suite('talk/askUser')
const results = (msg: Msg) => msg.content.filter((b): b is ToolResultBlock => b.type === 'tool_result').map((r) => [r.id, r.state, outputText(r.output)])
const codeOf = async (run: () => Promise<unknown>) => run().then(() => 'resolved', (error: { code?: string }) => error.code)
const clean = (log: readonly unknown[]) => {
  const events = JSON.parse(JSON.stringify(log))
  assert.equal(checkLog(events).violations, [])
  replay(events, undefined, { strict: true })
}

const asking = (input: unknown) => createAgent({
  name: 'a', clock: counterClock('a'), tools: [askUser()],
  model: scriptedModel([[...callTool('q-1', 'ask_user', input)], [...say('Thanks.')]]),
})

test('askUser parks the reply with REQUIRE_EXTERNAL_EXECUTION; a valid choice resumes it and the model reads the answer', async () => {
  const agent = asking({ question: 'Which color?', choices: ['red', 'blue'] })
  const first = await agent.reply('paint it')
  assert.is(agent.state.status, 'paused')
  assert.equal(first.waiting_for.map((c) => [c.id, c.name, c.state]), [['q-1', 'ask_user', 'submitted']])
  const reply = await agent.submitResult('q-1', { choice: 'blue' })
  assert.is(reply.text, 'Thanks.')
  assert.equal(results(agent.state.context.at(-1)!), [['q-1', 'success', '{"choice":"blue"}']])
  clean(agent.log)
})

test('answers that do not fit the question are refused with INVALID_INPUT and change nothing', async () => {
  const cases: [unknown, unknown[], unknown][] = [
    [{ question: 'Which?', choices: ['a', 'b'] }, [{ choice: 'c' }, { choices: ['a'] }, { text: 'neither' }, 'a', { output: 'a' }, { choice: 'a', text: 'x' }, {}], { choice: 'a' }],
    [{ question: 'Which?', choices: ['a', 'b', 'c'], multiple: true }, [{ choice: 'a' }, { choices: [] }, { choices: ['a', 'a'] }, { choices: ['z'] }], { choices: ['a', 'c'] }],
    [{ question: 'Which?', choices: ['a'], allowText: true }, [{ text: '' }, { text: 3 }], { text: 'my own' }],
    [{ question: 'Why?' }, [{ choice: 'a' }, { choices: ['a'] }, { text: '  ' }], { text: 'because' }],
  ]
  for (const [question, bad, good] of cases) {
    const agent = asking(question)
    await agent.reply('ask me')
    const before = agent.log.length
    for (const answer of bad) assert.is(await codeOf(() => agent.submitResult('q-1', answer as never)), 'INVALID_INPUT', `${JSON.stringify(answer)} for ${JSON.stringify(question)}`)
    assert.is(agent.log.length, before, 'nothing recorded')
    assert.is(agent.state.status, 'paused')
    assert.is((await agent.submitResult('q-1', good as never)).text, 'Thanks.')
    clean(agent.log)
  }
})

test("a sub-agent's question is answered from the root, by the call's id", async () => {
  const child = agentTool({ name: 'helper', description: 'Helps', agent: () => ({ name: 'Helper', clock: counterClock('h'), tools: [askUser()], model: scriptedModel([[...callTool('q-1', 'ask_user', { question: 'Go on?', choices: ['yes', 'no'] })], [...say('Child done.')]]) }) })
  const root = createAgent({ name: 'Root', clock: counterClock('r'), tools: [child], model: scriptedModel([[...callTool('c-1', 'helper', { task: 'x' })], [...say('Root done.')]]) })
  const paused = await root.reply('go')
  assert.equal(paused.waiting_for.map((c) => [c.id, c.name]), [['q-1', 'ask_user']])
  assert.is(await codeOf(() => root.submitResult(paused.waiting_for[0], { choice: 'maybe' })), 'INVALID_INPUT')
  const reply = await root.submitResult(paused.waiting_for[0], { choice: 'yes' })
  assert.is(reply.text, 'Root done.')
  clean(root.log)
  clean(root.children()[0].log)
})

test('a gentle stop of a tree stops every node at its next step: a sub-agent that finished its step gives its call its result', async () => {
  const p = probe()
  const child = agentTool({ name: 'helper', description: 'Helps', agent: () => ({ name: 'Helper', clock: counterClock('h'), tools: [slowTool(p, { ms: 40 })], model: scriptedModel([[...say('Child working.'), ...callTool('s-1', 'slow', { x: 'a' })], [...say('never')]]) }) })
  const root = createAgent({ name: 'Root', clock: counterClock('r'), tools: [child], model: scriptedModel([[...callTool('c-1', 'helper', { task: 'x' })], [...say('never')]]) })
  const run = root.reply('go')
  await new Promise((resolve) => setTimeout(resolve, 15))
  const helper = root.children()[0]
  assert.is(helper.state.status, 'running')
  await root.interrupt({ when: 'step' })
  assert.is((await run).finished_reason, 'interrupted')
  assert.equal(p.finished, ['s-1'], "the sub-agent's running tool finished")
  assert.equal(p.aborted, [])
  assert.equal(results(helper.state.context.at(-1)!), [['s-1', 'success', 'slow:a']])
  assert.ok(helper.log.some((e) => e.type === 'STOP_REQUESTED'), 'the sub-agent got its own gentle stop')
  const [call] = results(root.state.context.at(-1)!)
  assert.is(call[0], 'c-1')
  assert.ok(String(call[2]).includes('Child working.'), "the call holds the sub-agent's output")
  clean(root.log)
  clean(helper.log)
})

test.run()
