// Context compaction (`npx tsx examples/compaction.ts`): once the estimated input of a model call is
// over `maxContextTokens`, the older messages are summarized by a model call and the summary stands
// in for them in what the model is sent; the log keeps the whole history and a CONTEXT_COMPACTED event.
import { createAgent, replay, say, scriptedModel, UserMsg } from 'agentlog'

const model = scriptedModel([say('Paris is the capital of France.'), say('Berlin is the capital of Germany.'), say('Rome.')])
const summarizer = scriptedModel([
  say('The user asked for the capital of France: Paris.'),
  say('The user asked for the capitals of France (Paris) and Germany (Berlin).'),
])
const agent = createAgent({ name: 'Friday', model, compaction: { maxContextTokens: 200, keepRecent: 1, summarize: summarizer } })

for (const question of ['Capital of France?', 'Capital of Germany?', 'And of Italy?']) await agent.reply(UserMsg({ content: question }))

for (const e of agent.log) if (e.type === 'CONTEXT_COMPACTED') console.log(`compacted the first ${e.covers.messages} messages: ${e.summary}`)
console.log('the last request:', model.requests.at(-1)!.messages.map((m) => `${m.role}: ${m.content.map((b) => (b.type === 'text' ? b.text : '')).join('')}`))
console.log('messages in the context:', agent.state.context.length, '| replay equals state:', JSON.stringify(replay(agent.log)) === JSON.stringify(agent.state))
