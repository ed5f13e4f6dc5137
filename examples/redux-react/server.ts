// The example's server: a hub on the memory store running the scripted agent, the agentlog server
// (createServer) with the built page in front, on 127.0.0.1. Run: npx tsx examples/redux-react/server.ts
// (then open the URL it prints; PORT=0 picks a free port).
import { fileURLToPath } from 'node:url'
import { createHub, createServer, memoryStore } from 'agentlog'
import { listen, withWebPage } from 'agentlog/node'
import { exampleAgent } from './agent.js'
import { buildPage } from './build.js'

export const startExample = async (port = 0) => {
  const dir = await buildPage()
  const hub = createHub({ store: memoryStore(), agent: () => exampleAgent() })
  const listening = await listen(withWebPage(createServer({ hub }), { dir }), { port })
  return {
    url: listening.url,
    hub,
    async close() {
      await listening.close()
      await hub.close()
    },
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { url } = await startExample(Number(process.env.PORT ?? 8790))
  console.log(`agentlog + React + Redux at ${url}`)
}
