// Real models: OpenAI-compatible servers (OpenAI, Ollama, vLLM, llama.cpp, DeepSeek, ...) and
// Anthropic. Creating a model makes no request; with OPENAI_API_KEY or ANTHROPIC_API_KEY set, this
// example asks one question, and without a key it only says what it would use.
// Run: npx tsx examples/models.ts
// expect: models: gpt-4o-mini, qwen2.5, claude-sonnet-4-5
import { createAgent, openAIChatModel, anthropicModel } from 'agentlog'

const gpt = openAIChatModel({ model: 'gpt-4o-mini' })                        // OPENAI_API_KEY; baseURL for Ollama, vLLM, llama.cpp, DeepSeek, ...
const local = openAIChatModel({ model: 'qwen2.5', baseURL: 'http://localhost:11434/v1' })
const claude = anthropicModel({ model: 'claude-sonnet-4-5', maxTokens: 4096 })  // ANTHROPIC_API_KEY

console.log(`models: ${[gpt, local, claude].map((m) => m.name).join(', ')}`)
const model = process.env.OPENAI_API_KEY ? gpt : process.env.ANTHROPIC_API_KEY ? claude : null
if (model) {
  const agent = createAgent({ name: 'Friday', model })
  const reply = await agent.reply('Say hello in five words.')
  console.log(`${model.name}: ${reply.text}`)
} else {
  console.log('no OPENAI_API_KEY or ANTHROPIC_API_KEY set: no request made')
}
