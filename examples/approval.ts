// Human in the loop: a tool with `permission: 'ask'` parks the reply until the user answers. Three
// answers: approve, deny (the model sees the denial and goes on) and approve with edited arguments.
// Run: npx tsx examples/approval.ts
// expect: paused, waiting for delete_file {"path":"/tmp/a.txt"}
// expect: ran: delete /tmp/a.txt
// expect: denied: the model answered "OK, I left /tmp/b.txt alone."
// expect: ran: delete /tmp/c-copy.txt
// expect: status: idle
import { createAgent, defineTool, scriptedModel, say, callTool } from 'agentlog'
import { z } from 'zod'

const deleteFile = defineTool({
  name: 'delete_file', description: 'Deletes a file', input: z.object({ path: z.string() }),
  permission: 'ask',   // or 'allow', 'deny', or (input, state) => one of those
  execute: async ({ path }) => {
    console.log(`ran: delete ${path}`)
    return `deleted ${path}`
  },
})

const model = scriptedModel([
  [...say('Deleting it.'), ...callTool('call-1', 'delete_file', { path: '/tmp/a.txt' })],
  [...say('Done.')],
  [...callTool('call-2', 'delete_file', { path: '/tmp/b.txt' })],
  [...say('OK, I left /tmp/b.txt alone.')],
  [...callTool('call-3', 'delete_file', { path: '/tmp/c.txt' })],
  [...say('Deleted the file you chose.')],
])
const agent = createAgent({ name: 'Friday', model, tools: [deleteFile] })

// 1. Approve. The reply parks (no REPLY_END): reply() resolves with the calls it waits for.
const paused = await agent.reply('delete /tmp/a.txt')
agent.state.status        // 'paused'
agent.state.waiting_for   // the tool calls asking for approval (or submitted for external execution)
const [call] = paused.waiting_for
console.log(`${agent.state.status}, waiting for ${call.name} ${call.input}`)
await agent.approve(call.id)

// 2. Deny: the tool does not run; the model reads the denial and answers.
const second = await agent.reply('delete /tmp/b.txt')
const denied = await agent.deny(second.waiting_for[0].id, 'keep that one')
console.log(`denied: the model answered "${denied.text}"`)

// 3. Approve with edited arguments: the tool runs with what the user chose.
const third = await agent.reply('delete /tmp/c.txt')
await agent.approve(third.waiting_for[0].id, { input: { path: '/tmp/c-copy.txt' } })

// Or discard the pending work: await agent.interrupt() closes the asking calls as interrupted.
console.log(`status: ${agent.state.status}`)
