// Serving an agent over HTTP and using it from a client: a hub over a session store, the server as
// a fetch handler on Node's http, and remoteAgent, whose state is the fold of the session's events
// (the same reducers as the server). Stop, approvals and AG-UI (POST /ag-ui) go through the same server.
import { isDeepStrictEqual } from 'node:util'
import { createHub, createServer, memoryStore, remoteAgent, replay, say, scriptedModel } from 'agentlog'
import { listen } from 'agentlog/node'

const hub = createHub({
  store: memoryStore(),
  agent: () => ({ name: 'Friday', model: scriptedModel([[...say('Hello from the server!', 4)]], { onExhausted: 'repeat-last' }) }),
})
const server = await listen(createServer({ hub }), { port: 0 }) // 127.0.0.1, a free port

const { session_id } = (await (await fetch(`${server.url}/sessions`, { method: 'POST' })).json()) as { session_id: string }
const remote = remoteAgent({ url: server.url, session: session_id })
for await (const event of remote.replyStream('hi')) if (event.type === 'TEXT_BLOCK_DELTA') process.stdout.write(event.delta)
console.log()

const state = await remote.sync()
console.log(`${remote.log.length} events; replay(remote.log) equals the server's state:`, isDeepStrictEqual(replay(remote.log), state))

remote.close()
await server.close()
await hub.close()
