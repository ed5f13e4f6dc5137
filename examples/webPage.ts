// The web page in front of your own server: withWebPage(createServer(...)) serves the page at /,
// and `page: { store, agent }` (the hub's own store and agent options) adds the two routes the page
// needs beyond the event API: a session's tools (the page checks edited arguments against their
// input schemas) and Fork. Run: npx tsx examples/webPage.ts (add --keep to keep it running and open it)
// expect: the page: 200 text/html
// expect: its tools: send_email
// expect: a fork: 201
import { createHub, createServer, defineTool, memoryStore, say, scriptedModel, type HubOptions } from 'agentlog'
import { listen, withWebPage } from 'agentlog/node'
import { z } from 'zod'

const sendEmail = defineTool({
  name: 'send_email', description: 'Sends an email', permission: 'ask',
  input: z.object({ to: z.string().email(), subject: z.string() }),
  execute: ({ to, subject }) => `sent "${subject}" to ${to}`,
})
const store = memoryStore()
const agent: HubOptions['agent'] = () => ({ name: 'Friday', tools: [sendEmail], model: scriptedModel([say('Hello from your server.')], { onExhausted: 'repeat-last' }) })
const hub = createHub({ store, agent })
const server = await listen(withWebPage(createServer({ hub, page: { store, agent } })), { port: 0 })
console.log(`open ${server.url}/`)

const page = await fetch(`${server.url}/`)
console.log(`the page: ${page.status} ${page.headers.get('content-type')?.split(';')[0]}`)
const { session_id } = (await (await fetch(`${server.url}/sessions`, { method: 'POST' })).json()) as { session_id: string }
await hub.session(session_id).reply('hi')
const { tools } = (await (await fetch(`${server.url}/sessions/${session_id}/tools`)).json()) as { tools: { name: string }[] }
console.log(`its tools: ${tools.map((t) => t.name).join(', ')}`)
const forked = await fetch(`${server.url}/sessions/${session_id}/fork`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ seq: 1 }) })
console.log(`a fork: ${forked.status}`)

if (!process.argv.includes('--keep')) {
  await server.close()
  await hub.close()
}
