// A2A 1.0 both ways: a hub's agents served over A2A (createServer({ hub, a2a: true }): the card at
// /.well-known/agent-card.json, JSON-RPC at POST /a2a), and that remote agent used by a local lead
// as a sub-agent (a2aAgent from agentlog/a2a, which needs @a2a-js/sdk). The remote agent's
// approval waits in the lead's tree and is answered there; the answer crosses the boundary.
// Run: npx tsx examples/a2a.ts
// expect: card: worker, skills: remove
// expect: the lead waits for remote_approval (asking): Waiting for approve or deny remove({"path":"/tmp/a.txt"}).
// expect: remote tool ran: remove /tmp/a.txt
// expect: lead: The worker removed it.
import { z } from 'zod'
import { callTool, createAgent, createHub, createServer, defineTool, memoryStore, say, scriptedModel } from 'agentlog'
import { listen } from 'agentlog/node'
import { a2aAgent } from 'agentlog/a2a'

// The remote side: any agent of a hub, served over A2A next to the native API.
const remove = defineTool({
  name: 'remove', description: 'Removes a file', input: z.object({ path: z.string() }), permission: 'ask',
  execute: ({ path }) => (console.log(`remote tool ran: remove ${path}`), `removed ${path}`),
})
const hub = createHub({
  store: memoryStore(),
  agent: () => ({
    name: 'worker', description: 'Removes files when asked.', tools: [remove],
    model: scriptedModel([[...callTool('rm-1', 'remove', { path: '/tmp/a.txt' })], [...say('Removed /tmp/a.txt.')]]),
  }),
})
const server = await listen(createServer({ hub, a2a: true }), { port: 0 })
const card = await (await fetch(`${server.url}/.well-known/agent-card.json`)).json()
console.log(`card: ${card.name}, skills: ${card.skills.map((s: { id: string }) => s.id).join(', ')}`)

// The local side: the remote agent is a tool (named after its card) whose calls stream its text.
const worker = await a2aAgent({ url: server.url })
const lead = createAgent({
  name: 'lead', tools: [worker],
  model: scriptedModel([[...callTool('w-1', 'worker', { task: 'Remove /tmp/a.txt' })], [...say('The worker removed it.')]]),
})
const parked = await lead.reply('Please clean up.')
const [call] = parked.waiting_for
console.log(`the lead waits for ${call.name} (${call.state}): ${JSON.parse(call.input).question}`)
const done = await lead.approve(call)
console.log(`lead: ${done.text}`)

await server.close()
await hub.close()
