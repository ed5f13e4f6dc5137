// The real server for the browser specs: a hub on the memory store serving the playbook agent,
// createServer's handler with the web page in front, on 127.0.0.1 at an ephemeral port. The page
// is built first, so the specs always test the page as it is in the tree.
import { createHub, createServer, memoryStore, type Hub, type SessionStore } from '../../../lib/index.js'
import { listen, withWebPage } from '../../../lib/node.js'
import { buildWeb } from '../../../scripts/buildWeb.js'
import { playbookAgent } from './playbook.js'

export interface Served {
  url: string
  hub: Hub
  store: SessionStore
  /** Closes every connection and stops listening, then listens again on the same port. */
  drop(pauseMs: number): Promise<void>
  close(): Promise<void>
}

let built: Promise<void> | null = null

export const serve = async (): Promise<Served> => {
  built ??= buildWeb()
  await built
  const store = memoryStore()
  const hub = createHub({ store, agent: () => playbookAgent() })
  const handler = withWebPage(createServer({ hub, page: { store, agent: () => playbookAgent() } }))
  let listening = await listen(handler, { port: 0 })
  const url = listening.url
  const port = Number(new URL(url).port)
  return {
    url,
    hub,
    store,
    drop: async (pauseMs) => {
      await listening.close()
      await new Promise((resolve) => setTimeout(resolve, pauseMs))
      listening = await listen(handler, { port })
    },
    close: async () => {
      await listening.close()
      await hub.close()
    },
  }
}
