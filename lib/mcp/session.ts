// One MCP server connection shared by the tools made from it: connected on first use and again on
// the next call after the server crashed or disconnected (the SDK's `onclose`; the call that was
// running gets the SDK's connection-closed error, which becomes its `error` result). `close()`
// shuts it down (a spawned server exits); a later call connects anew, so tools shared by several
// agents (a hub's sessions) keep working after one of them closes. A client the caller connected
// is used as it is: never reconnected or closed here.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { AgentError } from '../errors.js'

export interface McpSession {
  client(): Promise<Client>
  close(): Promise<void>
}

export const managedSession = (connect: () => Promise<Client>): McpSession => {
  let current: Promise<Client> | null = null
  return {
    client() {
      if (current) return current
      const attempt: Promise<Client> = connect().then((client) => {
        const previous = client.onclose
        client.onclose = () => {
          previous?.()
          if (current === attempt) current = null
        }
        return client
      })
      attempt.catch(() => {
        if (current === attempt) current = null
      })
      current = attempt
      return attempt
    },
    async close() {
      const pending = current
      current = null
      const client = await pending?.catch(() => null)
      await client?.close()
    },
  }
}

export const userSession = (client: Client): McpSession => ({
  client: () => Promise.resolve(client),
  close: async () => undefined,
})

/** A new SDK client connected over `transport`; the SDK is loaded only now (an optional peer dependency). */
export const connectClient = async (transport: Parameters<Client['connect']>[0]): Promise<Client> => {
  const { Client } = await importSdk(() => import('@modelcontextprotocol/sdk/client/index.js'))
  const client = new Client({ name: 'agentlog', version: '0.1.0' }, { capabilities: {} })
  await client.connect(transport)
  return client
}

export const importSdk = async <T>(load: () => Promise<T>): Promise<T> => {
  try {
    return await load()
  } catch (error) {
    throw new AgentError('MISSING_DEPENDENCY', `MCP tools need the official SDK: npm install @modelcontextprotocol/sdk (${(error as Error).message}).`)
  }
}
