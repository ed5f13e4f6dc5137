// `agentlog serve`: the HTTP service (native API and AG-UI) over a hub. The agent comes from a
// module exporting the agent options (or a function of the session id) as `default` or `agent` (a
// .ts module loads through tsx when its project has it; otherwise one line says what to do),
// or from --scripted (the demo model, no key needed). Sessions live in a directory by default, or in
// PostgreSQL (several `serve` processes on one database answer for every session).
// It binds to 127.0.0.1 unless told otherwise, and then only with a token; the token is never printed
// (prefer AGENTLOG_TOKEN to --token: a command line is visible to other local users), and an empty
// one is an error, not "no token". Without a token only loopback Host names (and --allow-host) are served.
// The web page (dist/web) is served at /; it loads images only from its origin and data: unless --remote-images.
// --a2a serves each agent over A2A 1.0 too (lib/server/a2a: the card from the --agent module).
// --otlp URL sends every reply's spans (agentlog/otel, sub-agents included) to an OTLP/HTTP collector
// as they run (traces only; the OpenTelemetry SDK must be installed).
import { createRequire } from 'node:module'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { AgentError } from '../core/errors.js'
import type { HubOptions } from '../hub/types.js'
import { createHub } from '../hub/hub.js'
import { createServer } from '../server/index.js'
import { listen, LOOPBACK } from '../server/listen.js'
import { withWebPage } from '../server/webPage.js'
import { demoTools } from './demo/tools.js'
import { scriptedChatModel } from './scriptedChat.js'
import { CommandError, parse, UsageError, type Command } from './command.js'
import { openStore } from './source.js'
import { loadSdk } from './trace.js'

type AgentFactory = HubOptions['agent']

/** createServer's shortest token. */
const MIN_TOKEN = 8

const TYPESCRIPT = /\.[mc]?ts$/

const loadAgent = async (path: string): Promise<AgentFactory> => {
  if (!existsSync(resolve(path))) throw new CommandError(`--agent ${path}: no such file in ${process.cwd()}; give the path of a module that exports the agent options`)
  const url = pathToFileURL(resolve(path)).href
  const module = (await import(url).catch((error: { code?: unknown }) => {
    if (TYPESCRIPT.test(path) && error?.code === 'ERR_UNKNOWN_FILE_EXTENSION') return importTypeScript(path, url)
    throw error
  })) as { default?: unknown; agent?: unknown }
  const exported = module.agent ?? module.default
  if (typeof exported === 'function') return exported as AgentFactory
  if (typeof exported === 'object' && exported !== null) return () => exported as ReturnType<AgentFactory>
  throw new AgentError('INVALID_OPTION', `${path} must export the agent options (or a function of the session id) as "agent" or default.`)
}

/** A TypeScript module through tsx, when the module's project has it; otherwise one line saying what to do. */
const importTypeScript = async (path: string, url: string): Promise<unknown> => {
  const api = tsxApi(resolve(path))
  if (!api)
    throw new AgentError('INVALID_OPTION', `${path} is TypeScript, which Node ${process.versions.node} does not load by itself: install tsx in its project (npm install --save-dev tsx), or compile it to .js, or write it as an .mjs module.`)
  const { register } = (await import(pathToFileURL(api).href)) as { register: () => unknown }
  register()
  return import(`${url}?typescript`) // a new URL: Node keeps the failed load of the first one
}

/** The ES module entry of tsx's `tsx/esm/api` as the project of `file` resolves it, or null when it has no tsx. */
const tsxApi = (file: string): string | null => {
  try {
    const manifestPath = createRequire(file).resolve('tsx/package.json')
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { exports?: Record<string, { import?: string | { default?: string } }> }
    const entry = manifest.exports?.['./esm/api']?.import
    const target = typeof entry === 'string' ? entry : entry?.default
    return target ? join(dirname(manifestPath), target) : null
  } catch {
    return null
  }
}

/** A port in use or not allowed, in one line; anything else as it is. */
const listenError = (error: unknown, host: string, port: number): unknown => {
  const code = (error as { code?: unknown } | null)?.code
  if (code === 'EADDRINUSE') return new CommandError(`port ${port} on ${host} is in use by another program: stop it, or give another port with --port (--port 0 picks a free one)`)
  if (code === 'EACCES') return new CommandError(`port ${port} on ${host} needs more privileges than this user has: give a port above 1023 with --port`)
  if (code === 'EADDRNOTAVAIL') return new CommandError(`--host ${host} is not an address of this machine`)
  return error
}

/** The demo agent: the scripted model (its answers speak of the page's buttons) with a tool for each thing the page does. */
const scriptedAgent: AgentFactory = () => ({
  name: 'assistant', sysPrompt: 'You are a helpful assistant.',
  model: scriptedChatModel({ tools: true, surface: 'page' }), tools: demoTools(),
})

export const serve: Command = {
  summary: 'Serve agents over HTTP: the native event API and AG-UI 1.0 (and A2A 1.0 with --a2a).',
  usage: 'agentlog serve (--agent ./agent.ts | --scripted) [--store ./sessions | postgres://… | nats://… [--schema agentlog]] [--port 8787] [--host 127.0.0.1] [--allow-host NAME]... [--remote-images] [--a2a] [--otlp http://host:4318 [--service NAME]] [--token T, better AGENTLOG_TOKEN=T]',
  async run(args, io) {
    const { values } = parse(args, {
      agent: { type: 'string' }, scripted: { type: 'boolean' }, store: { type: 'string' },
      port: { type: 'string' }, host: { type: 'string' }, token: { type: 'string' }, schema: { type: 'string' },
      'allow-host': { type: 'string', multiple: true }, 'remote-images': { type: 'boolean' }, a2a: { type: 'boolean' }, otlp: { type: 'string' }, service: { type: 'string' },
    }, [])
    if (!values.agent === !values.scripted) throw new UsageError('give --agent ./module.ts or --scripted (one of them)')
    const port = Number(values.port ?? 8787)
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be a port number; received ${String(values.port)}`)
    const token = (values.token as string | undefined) ?? process.env.AGENTLOG_TOKEN
    if (token === '') throw new UsageError(`${values.token === '' ? '--token' : 'AGENTLOG_TOKEN'} is empty; give a token of at least ${MIN_TOKEN} characters, or leave it out to serve on loopback without one`)
    // Checked before anything is created (the sessions directory, the tables): a refused start leaves nothing behind.
    if (token !== undefined && token.length < MIN_TOKEN)
      throw new UsageError(`the token (--token or AGENTLOG_TOKEN) must be at least ${MIN_TOKEN} characters; this one has ${token.length}`)
    const host = (values.host as string | undefined) ?? '127.0.0.1'
    if (!token && !LOOPBACK.test(host))
      throw new CommandError(`--host ${host} is reachable from other machines, so it needs a token: set AGENTLOG_TOKEN to a secret of at least ${MIN_TOKEN} characters, or serve on 127.0.0.1`)
    const hosts = values['allow-host'] as string[] | undefined
    if (values.service !== undefined && values.otlp === undefined) throw new UsageError('--service names the service of the spans --otlp sends; give --otlp too')
    const otel = values.otlp === undefined ? null : await loadSdk('agentlog serve --otlp')
    otel?.otlpTracesUrl(values.otlp as string) // a bad URL is refused before anything is created
    const agent = values.scripted ? scriptedAgent : await loadAgent(values.agent as string)
    const store = await openStore((values.store as string | undefined) ?? './sessions', values.schema as string | undefined, true)
    await store.migrate?.()
    const hub = createHub({ store, agent })
    const tracing = otel && await otel.exportLive(hub, values.otlp as string, (values.service as string | undefined) ?? 'agentlog').catch(async (error: unknown) => {
      await hub.close()
      throw error
    })
    const listening = await listen(withWebPage(createServer({ hub, page: { store, agent }, ...(values.a2a ? { a2a: true } : {}), ...(token ? { token } : {}), ...(hosts ? { hosts } : {}) }), { remoteImages: values['remote-images'] === true }), { port, host })
      .catch(async (error: unknown) => {
        await tracing?.stop()
        await hub.close()
        throw listenError(error, host, port)
      })
    io.out(`agentlog serve: listening on ${listening.url}${token ? ' (bearer token required)' : ''}`)
    if (tracing) io.out(`agentlog serve: sending traces to ${tracing.url}`)
    io.out(`agentlog serve: the web page is at ${listening.url}/`)
    if (values.a2a) io.out(`agentlog serve: A2A 1.0 at ${listening.url}/a2a (card: ${listening.url}/.well-known/agent-card.json)`)
    await new Promise<void>((done) => {
      process.once('SIGINT', done)
      process.once('SIGTERM', done)
    })
    await listening.close()
    await tracing?.stop()
    await hub.close()
    io.out('agentlog serve: stopped')
    return 0
  },
}
