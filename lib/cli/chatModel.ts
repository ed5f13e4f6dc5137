// Which model `agentlog chat` talks to, by one rule, flags before the environment (README, "Which
// model chat talks to"): --scripted; the provider from --provider, else from which key or base URL
// is set; its base URL from --base-url, else OPENAI_BASE_URL / ANTHROPIC_BASE_URL; its key from the
// environment; the model name from --model, else AGENTLOG_MODEL. What is missing is one line.
import type { ChatModel } from '../models/model.js'
import { anthropicModel } from '../models/anthropic.js'
import { openAIChatModel } from '../models/openai.js'
import { scriptedChatModel } from './scriptedChat.js'

export interface ModelChoice {
  provider?: string
  model?: string
  baseURL?: string
  scripted?: boolean
  /** The chat offers its built-in tools (the scripted model then calls them). */
  tools?: boolean
}

/** `url` is the endpoint the chat posts to (for error hints), null for the scripted model. */
export type Resolved = { model: ChatModel; describe: string; url: string | null } | { error: string }

const OPENAI_URL = 'https://api.openai.com/v1'
const ANTHROPIC_URL = 'https://api.anthropic.com'

type Env = Record<string, string | undefined>
const set = (env: Env, name: string) => (env[name] ?? '') !== ''

/** The provider: the flag, else the first of OPENAI_API_KEY, ANTHROPIC_API_KEY, OPENAI_BASE_URL, ANTHROPIC_BASE_URL, --base-url. */
export const chooseProvider = (choice: ModelChoice, env: Env): string | undefined => {
  if (choice.provider !== undefined) return choice.provider
  if (set(env, 'OPENAI_API_KEY')) return 'openai'
  if (set(env, 'ANTHROPIC_API_KEY')) return 'anthropic'
  if (set(env, 'OPENAI_BASE_URL')) return 'openai'
  if (set(env, 'ANTHROPIC_BASE_URL')) return 'anthropic'
  if (choice.baseURL !== undefined) return 'openai'
  return undefined
}

export const resolveChatModel = (choice: ModelChoice, env: Env): Resolved => {
  if (choice.scripted) return { model: scriptedChatModel({ tools: !!choice.tools }), describe: 'the scripted model (no key, no network)', url: null }
  const provider = chooseProvider(choice, env)
  const name = choice.model ?? (set(env, 'AGENTLOG_MODEL') ? env.AGENTLOG_MODEL : undefined)
  if (provider === 'anthropic') {
    const baseURL = choice.baseURL ?? (set(env, 'ANTHROPIC_BASE_URL') ? env.ANTHROPIC_BASE_URL! : ANTHROPIC_URL)
    if (!set(env, 'ANTHROPIC_API_KEY')) return { error: `Anthropic needs a key: set ANTHROPIC_API_KEY (the base URL is ${baseURL}).` }
    const model = name ?? 'claude-sonnet-4-5'
    return { model: anthropicModel({ model, maxTokens: 4096, baseURL, apiKey: env.ANTHROPIC_API_KEY }), describe: `Anthropic ${model} at ${baseURL}`, url: `${baseURL.replace(/\/+$/, '')}/v1/messages` }
  }
  if (provider === 'openai') {
    const baseURL = choice.baseURL ?? (set(env, 'OPENAI_BASE_URL') ? env.OPENAI_BASE_URL! : OPENAI_URL)
    const official = /^https:\/\/api\.openai\.com(\/|$)/.test(baseURL)
    if (official && !set(env, 'OPENAI_API_KEY')) return { error: 'OpenAI needs a key: set OPENAI_API_KEY, or pass --base-url (or set OPENAI_BASE_URL) for a local server such as Ollama.' }
    const model = name ?? 'gpt-4o-mini'
    return { model: openAIChatModel({ model, baseURL, apiKey: set(env, 'OPENAI_API_KEY') ? env.OPENAI_API_KEY : undefined }), describe: `${model} at ${baseURL}`, url: `${baseURL.replace(/\/+$/, '')}/chat/completions` }
  }
  if (provider !== undefined) return { error: `unknown provider "${provider}"; use --provider openai or --provider anthropic.` }
  return { error: 'no model configured: set OPENAI_API_KEY (or OPENAI_BASE_URL for a local server), or ANTHROPIC_API_KEY, or run with --scripted.' }
}

/** A hint for a provider's 404: the URL asked, and the usual cause (an OpenAI base URL without /v1). */
export const notFoundHint = (message: string, url: string | null): string | null => {
  if (!/\b404\b/.test(message) || url === null) return null
  const v1 = url.endsWith('/chat/completions') && !url.endsWith('/v1/chat/completions')
    ? ' OpenAI-compatible base URLs usually end in /v1 (Ollama: http://localhost:11434/v1).' : ''
  return `POST ${url} answered 404 (not found): check the base URL and the model name.${v1}`
}
