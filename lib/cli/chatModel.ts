// Which model `agentlog chat` talks to: from flags first, then the environment (OPENAI_API_KEY,
// OPENAI_BASE_URL, ANTHROPIC_API_KEY, AGENTLOG_MODEL). Without any, the caller gets a one-line
// message that says what to set; `--scripted` needs nothing.
import type { ChatModel } from '../model.js'
import { anthropicModel } from '../models/anthropic.js'
import { openAIChatModel } from '../models/openai.js'
import { say, scriptedModel, think } from '../scriptedModel.js'

export interface ModelChoice {
  provider?: string
  model?: string
  baseURL?: string
  scripted?: boolean
}

export type Resolved = { model: ChatModel; describe: string } | { error: string }

export const resolveChatModel = (choice: ModelChoice, env: NodeJS.ProcessEnv): Resolved => {
  if (choice.scripted) return { model: demoModel(), describe: 'the scripted model' }
  const name = choice.model ?? env.AGENTLOG_MODEL
  const openAIBase = choice.baseURL ?? env.OPENAI_BASE_URL
  const provider = choice.provider ?? (env.ANTHROPIC_API_KEY && !env.OPENAI_API_KEY && !openAIBase ? 'anthropic' : env.OPENAI_API_KEY || openAIBase ? 'openai' : undefined)
  if (provider === 'anthropic') {
    if (!env.ANTHROPIC_API_KEY && !choice.baseURL) return { error: 'no Anthropic key: set ANTHROPIC_API_KEY (or pass --base-url for a compatible server).' }
    const model = name ?? 'claude-sonnet-4-5'
    return { model: anthropicModel({ model, maxTokens: 4096, baseURL: choice.baseURL, apiKey: env.ANTHROPIC_API_KEY }), describe: `Anthropic ${model}` }
  }
  if (provider === 'openai') {
    if (!env.OPENAI_API_KEY && !openAIBase) return { error: 'no OpenAI key: set OPENAI_API_KEY, or OPENAI_BASE_URL for a local server such as Ollama.' }
    const model = name ?? 'gpt-4o-mini'
    return { model: openAIChatModel({ model, baseURL: openAIBase, apiKey: env.OPENAI_API_KEY }), describe: `${model} at ${openAIBase ?? 'OpenAI'}` }
  }
  if (provider !== undefined) return { error: `unknown provider "${provider}"; use --provider openai or --provider anthropic.` }
  return { error: 'no model configured: set OPENAI_API_KEY (or OPENAI_BASE_URL for a local server), or ANTHROPIC_API_KEY, or run with --scripted.' }
}

/** A canned conversation that streams slowly enough to watch (and to interrupt). */
const demoModel = () => scriptedModel([
  [...think('A greeting; answer briefly.', 2), ...say('Hello! I am the scripted model: I stream canned answers, so you can try streaming and Ctrl-C without a key.', 12)],
  [...say('This is a long answer that streams word by word so that you can press Ctrl-C in the middle of it and see the reply stop at once, with the partial text kept in the conversation.', 30)],
  [...say('Still here. Every answer after this one repeats it.', 6)],
], { chunkDelayMs: 60, onExhausted: 'repeat-last', name: 'scripted' })
