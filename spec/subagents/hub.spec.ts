import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { agentTool, callTool, createHub, memoryStore, say, scriptedModel } from '../../lib/index.js'
import { probe } from '../helpers/fixtures.js'
import { askingTool } from '../helpers/hitl.js'

const test = suite('subagents/hub')

test("a session's handle answers a sub-agent's call; the owner resumes the sub-agent, then the session's reply", async () => {
  const p = probe()
  const research = agentTool({
    name: 'research', description: 'R',
    agent: () => ({ name: 'Researcher', tools: [askingTool(p)], model: scriptedModel([[...callTool('d1', 'delete_file', { path: '/a' })], [...say('Deleted.')]]) }),
  })
  const hub = createHub({ store: memoryStore(), agent: () => ({ name: 'Lead', tools: [research], model: scriptedModel([[...callTool('c1', 'research', { task: 'go' })], [...say('Done.')]]) }) })
  const { session_id } = await hub.create()
  const session = hub.session(session_id)
  await session.reply('go')
  const paused = await session.state()
  assert.is(paused.status, 'paused')
  assert.equal(paused.waiting_for.map((c) => [c.id, c.state]), [['c1', 'submitted']], "in the root's log the sub-agent call waits")
  await session.approve('d1')
  for (let i = 0; i < 1000 && (await session.state()).status !== 'idle'; i++) await new Promise((resolve) => setTimeout(resolve, 2))
  const state = await session.state()
  assert.is(state.status, 'idle')
  assert.equal(p.started.map((s) => s.id), ['d1'])
  assert.is(state.context.at(-1)!.finished_reason, 'completed')
  await hub.close()
})

test.run()
