// Serving an agent over HTTP and using it from a client: a hub over a session store, the server as
// a fetch handler on Node's http, and remoteAgent, which behaves as a local agent: reply() resolves
// to the same values, approve() / deny() / submitResult() to the reply they resumed, and its state
// (the fold of the session's events, with the same reducers as the server) shows each end at once.
// It follows the session only while a call is in progress or something subscribes to its streams,
// so it never keeps the process alive by itself; close() ends it. AG-UI (POST /ag-ui) goes through
// the same server.
// expect: Hello from the server!
// expect: paused, waiting for delete_file {"path":"/tmp/a.txt"}
// expect: approved: Deleted it. (status: idle)
// expect: events; replay(remote.log) equals the server's state: true
import { isDeepStrictEqual } from 'node:util'
import { z } from 'zod'
import { callTool, createHub, createServer, defineTool, memoryStore, remoteAgent, replay, say, scriptedModel } from 'agentlog'
import { listen } from 'agentlog/node'

const deleteFile = defineTool({
  name: 'delete_file', description: 'Deletes a file', input: z.object({ path: z.string() }), permission: 'ask',
  execute: ({ path }) => `deleted ${path}`,
})
const hub = createHub({
  store: memoryStore(),
  agent: () => ({
    name: 'Friday', tools: [deleteFile],
    model: scriptedModel([[...say('Hello from the server!', 4)], [...callTool('c-1', 'delete_file', { path: '/tmp/a.txt' })], [...say('Deleted it.')]]),
  }),
})
const server = await listen(createServer({ hub }), { port: 0 }) // 127.0.0.1, a free port

const { session_id } = (await (await fetch(`${server.url}/sessions`, { method: 'POST' })).json()) as { session_id: string }
const remote = remoteAgent({ url: server.url, session: session_id })
for await (const event of remote.replyStream('hi')) if (event.type === 'TEXT_BLOCK_DELTA') process.stdout.write(event.delta)
console.log()

const paused = await remote.reply('Delete /tmp/a.txt')        // as agent.reply(): the paused message
const call = paused.waiting_for[0]
console.log(`paused, waiting for ${call.name} ${call.input}`)
const done = await remote.approve(call.id)                    // resolves once the reply has ended
console.log(`approved: ${done.text} (status: ${remote.state.status})`)

const state = await remote.sync()
console.log(`${remote.log.length} events; replay(remote.log) equals the server's state:`, isDeepStrictEqual(replay(remote.log), state))

remote.close() // optional here: ends the client (calls in progress reject with CLOSED)
await server.close()
await hub.close()
