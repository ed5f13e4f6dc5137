// A tree of agents over the native API (issue 21 item 8): GET /sessions/:id/waiting lists the calls
// the tree waits for, a sub-agent's with its session; the root's /input answers a sub-agent's call
// where it waits (approve, deny), and the root's reply goes on to its end.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { z } from 'zod'
import { agentTool, callTool, defineTool, say, scriptedModel } from '../../lib/index.js'
import type { WaitingCall } from '../../lib/agent/text.js'
import { newSession, post, readAll, startServer, untilIdle } from './helpers.js'

const test = suite('server/subagents')

const removed: string[] = []
const remove = defineTool({ name: 'remove', description: 'Removes a file', input: z.object({ path: z.string() }), permission: 'ask', execute: ({ path }) => (removed.push(path), `removed ${path}`) })

const serveTree = () => startServer(() => ({
  name: 'Lead',
  tools: [agentTool({ name: 'research', description: 'Researches', agent: () => ({ name: 'Researcher', tools: [remove], model: scriptedModel([[...callTool('r-1', 'remove', { path: '/a' })], [...say('Handled.')]]) }) })],
  model: scriptedModel([[...callTool('c-1', 'research', { task: 'clean up' })], [...say('All done.')]]),
}))

const waiting = async (url: string, id: string) => {
  const res = await fetch(`${url}/sessions/${id}/waiting`)
  return { status: res.status, body: (await res.json()) as { waiting_for: WaitingCall[]; code?: string } }
}

for (const [answer, body, expected] of [
  ['approve', { approve: { tool_call_id: 'r-1' } }, 'success'],
  ['deny', { deny: { tool_call_id: 'r-1', reason: 'keep it' } }, 'denied'],
] as const) {
  test(`GET /waiting names the sub-agent's asking call and its session; /input ${answer} on the root answers it`, async () => {
    const server = await serveTree()
    removed.length = 0
    try {
      const id = await newSession(server.url)
      await readAll(await post(`${server.url}/sessions/${id}/replies`, { input: 'clean up' }))
      const { status, body: tree } = await waiting(server.url, id)
      assert.is(status, 200)
      assert.equal(tree.waiting_for.map((c) => [c.id, c.name, c.state]), [['r-1', 'remove', 'asking']])
      assert.is.not(tree.waiting_for[0].session_id, id, "the call waits in the sub-agent's session")
      const answered = await post(`${server.url}/sessions/${id}/input`, body)
      assert.is(answered.status, 200, await answered.clone().text())
      const state = await untilIdle(server.url, id)
      const reply = state.context.at(-1)!
      assert.is(reply.finished_reason, 'completed')
      const result = reply.content.find((b) => b.type === 'tool_result')!
      assert.ok(result.type === 'tool_result' && result.state === 'success' && JSON.stringify(result.output).includes('Handled.'))
      assert.equal(removed, expected === 'success' ? ['/a'] : [])
      assert.equal((await waiting(server.url, id)).body.waiting_for, [])
    } finally {
      await server.close()
    }
  })
}

test('GET /waiting of an unknown session is a 404 NOT_FOUND', async () => {
  const server = await serveTree()
  try {
    const { status, body } = await waiting(server.url, 'nobody')
    assert.is(status, 404)
    assert.is(body.code, 'NOT_FOUND')
  } finally {
    await server.close()
  }
})

test.run()
