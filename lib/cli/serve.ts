// `agentlog serve`: the HTTP service (native API and AG-UI) over a hub. The agent comes from a
// module exporting the agent options (or a function of the session id) as `default` or `agent`,
// or from --scripted (the demo model, no key needed). Sessions live in a directory by default, or in
// PostgreSQL (several `serve` processes on one database answer for every session).
// It binds to 127.0.0.1 unless told otherwise, and then only with a token; the token is never printed
// (prefer AGENTLOG_TOKEN to --token: a command line is visible to other local users), and an empty
// one is an error, not "no token". Without a token only loopback Host names (and --allow-host) are served.
// The web page (dist/web) is served at /; it loads images only from its origin and data: unless --remote-images.
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { AgentError } from '../errors.js'
import type { HubOptions } from '../hub/types.js'
import { createHub } from '../hub/hub.js'
import { createServer } from '../server/index.js'
import { listen } from '../server/listen.js'
import { withWebPage } from '../webPage.js'
import { resolveChatModel } from './chatModel.js'
import { parse, UsageError, type Command } from './command.js'
import { openStore } from './source.js'

type AgentFactory = HubOptions['agent']

const loadAgent = async (path: string): Promise<AgentFactory> => {
  const module = (await import(pathToFileURL(resolve(path)).href)) as { default?: unknown; agent?: unknown }
  const exported = module.agent ?? module.default
  if (typeof exported === 'function') return exported as AgentFactory
  if (typeof exported === 'object' && exported !== null) return () => exported as ReturnType<AgentFactory>
  throw new AgentError('INVALID_OPTION', `${path} must export the agent options (or a function of the session id) as "agent" or default.`)
}

const scriptedAgent: AgentFactory = () => {
  const choice = resolveChatModel({ scripted: true }, {})
  if ('error' in choice) throw new AgentError('INVALID_OPTION', choice.error)
  return { name: 'assistant', sysPrompt: 'You are a helpful assistant.', model: choice.model }
}

export const serve: Command = {
  summary: 'Serve agents over HTTP: the native event API and AG-UI 1.0.',
  usage: 'agentlog serve (--agent ./agent.ts | --scripted) [--store ./sessions | postgres://… | nats://… [--schema agentlog]] [--port 8787] [--host 127.0.0.1] [--allow-host NAME]... [--remote-images] [--token T, better AGENTLOG_TOKEN=T]',
  async run(args, io) {
    const { values } = parse(args, {
      agent: { type: 'string' }, scripted: { type: 'boolean' }, store: { type: 'string' },
      port: { type: 'string' }, host: { type: 'string' }, token: { type: 'string' }, schema: { type: 'string' },
      'allow-host': { type: 'string', multiple: true }, 'remote-images': { type: 'boolean' },
    }, [])
    if (!values.agent === !values.scripted) throw new UsageError('give --agent ./module.ts or --scripted (one of them)')
    const port = Number(values.port ?? 8787)
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be a port number; received ${String(values.port)}`)
    const token = (values.token as string | undefined) ?? process.env.AGENTLOG_TOKEN
    if (token === '') throw new UsageError(`${values.token === '' ? '--token' : 'AGENTLOG_TOKEN'} is empty; give a token of at least 8 characters, or leave it out to serve on loopback without one`)
    const hosts = values['allow-host'] as string[] | undefined
    const agent = values.scripted ? scriptedAgent : await loadAgent(values.agent as string)
    const store = await openStore((values.store as string | undefined) ?? './sessions', values.schema as string | undefined, true)
    await store.migrate?.()
    const hub = createHub({ store, agent })
    const listening = await listen(withWebPage(createServer({ hub, page: { store, agent }, ...(token ? { token } : {}), ...(hosts ? { hosts } : {}) }), { remoteImages: values['remote-images'] === true }), { port, host: (values.host as string | undefined) ?? '127.0.0.1' })
      .catch(async (error: unknown) => {
        await hub.close()
        throw error
      })
    io.out(`agentlog serve: listening on ${listening.url}${token ? ' (bearer token required)' : ''}`)
    io.out(`agentlog serve: the web page is at ${listening.url}/`)
    await new Promise<void>((done) => {
      process.once('SIGINT', done)
      process.once('SIGTERM', done)
    })
    await listening.close()
    await hub.close()
    io.out('agentlog serve: stopped')
    return 0
  },
}
