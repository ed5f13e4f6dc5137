// The A2A agent card served at /.well-known/agent-card.json: the JSON-RPC interface at POST /a2a
// (A2A 1.0), streaming on, push notifications off, one skill per tool of the agent a new session
// gets (or the skills given), and, when the server has a token, a bearer scheme every call needs.
import { AgentError } from '../../core/errors.js'
import type { HubOptions } from '../../hub/types.js'
import { A2A_VERSION } from './rpc.js'

export interface A2aSkill {
  id: string
  name: string
  description: string
  tags?: string[]
  examples?: string[]
}

export interface A2aOptions {
  /** The card's name (default: the name of the agent a new session gets). */
  name?: string
  /** The card's description (default: that agent's `description`, else its name). */
  description?: string
  /** The card's skills (default: one per tool of that agent, or one for the agent itself when it has none). */
  skills?: A2aSkill[]
}

export interface CardFacts {
  name: string
  description: string
  skills: A2aSkill[]
}

/** The card's facts: the options given, the rest from the agent a new session gets (read once). */
export const cardFacts = async (options: A2aOptions, agent: HubOptions['agent'] | undefined): Promise<CardFacts> => {
  for (const key of ['name', 'description'] as const)
    if (options[key] !== undefined && (typeof options[key] !== 'string' || options[key] === '')) throw new AgentError('INVALID_OPTION', `createServer: a2a.${key} must be a non-empty string.`)
  if (options.skills !== undefined && !(Array.isArray(options.skills) && options.skills.every((s) => typeof s?.id === 'string' && typeof s.name === 'string' && typeof s.description === 'string')))
    throw new AgentError('INVALID_OPTION', 'createServer: a2a.skills must be a list of { id, name, description, tags?, examples? }.')
  const made = options.name && options.description && options.skills ? null : agent ? await agent('a2a-card') : null
  const name = options.name ?? made?.name ?? 'agentlog agent'
  const description = options.description ?? made?.description ?? name
  const tools = made?.tools ?? []
  const skills = options.skills ?? (tools.length
    ? tools.map((t) => ({ id: t.spec.name, name: t.spec.name, description: t.spec.description, tags: ['tool'] }))
    : [{ id: 'chat', name, description, tags: ['chat'] }])
  return { name, description, skills }
}

/** The card, with the interface URL on the origin the request reached. */
export const agentCard = (facts: CardFacts, origin: string, bearer: boolean) => ({
  name: facts.name,
  description: facts.description,
  version: '1.0.0',
  supportedInterfaces: [{ url: `${origin}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: A2A_VERSION }],
  capabilities: { streaming: true, pushNotifications: false },
  defaultInputModes: ['text/plain', 'application/json', 'image/*'],
  defaultOutputModes: ['text/plain', 'application/json'],
  skills: facts.skills.map((s) => ({ tags: [], ...s })),
  ...(bearer ? {
    securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: 'bearer', description: 'The token the server was started with (createServer({ token }), serve --token / AGENTLOG_TOKEN).' } } },
    securityRequirements: [{ schemes: { bearer: { list: [] } } }],
  } : {}),
})
