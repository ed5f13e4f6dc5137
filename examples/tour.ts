// A tour: a tool, a scripted model and an agent; a reply streamed, a plain-string reply, and a
// reply stopped with an AbortController while the model streams. Run: npx tsx examples/tour.ts
// expect: It is sunny in Paris.
// expect: final text: It is still sunny in Paris.
// expect: stopped: interrupted
import { createAgent, defineTool, scriptedModel, say, callTool } from 'agentlog'
import { z } from 'zod'

const getWeather = defineTool({
  name: 'get_weather', description: 'Weather for a city',
  input: z.object({ city: z.string() }),
  concurrencySafe: true,                                   // runs beside other safe tools of a batch
  execute: async ({ city }, { signal, tool_call_id }) => `Sunny in ${city}`,  // or { output, state, metadata }, or an async iterable of text
})

// A deterministic model for tests and demos; openAIChatModel / anthropicModel talk to real ones.
const model = scriptedModel([
  [...say('Let me check.'), ...callTool('call-1', 'get_weather', { city: 'Paris' })],
  [...say('It is sunny in Paris.')],
  [...say('It is still sunny in Paris.')],
  [...say('A long answer that streams word by word, so that it can be stopped halfway through.', 20)],
], { chunkDelayMs: 5 })

const agent = createAgent({ name: 'Friday', sysPrompt: 'You are helpful.', model, tools: [getWeather], maxIters: 10 })

// Stream a reply: every event as it happens.
for await (const event of agent.replyStream('Weather in Paris?')) {
  if (event.type === 'TEXT_BLOCK_DELTA') process.stdout.write(event.delta)
  if (event.type === 'TEXT_BLOCK_END') process.stdout.write('\n')
}

// Or wait for the final message.
const reply = await agent.reply('And now?')
console.log('final text:', reply.text)

// Stop a reply at any moment: the stream yields the closing events, then ends.
const controller = new AbortController()
setTimeout(() => controller.abort(), 30)
for await (const event of agent.replyStream('Tell me more.', { signal: controller.signal })) {
  if (event.type === 'REPLY_END') console.log('stopped:', event.finished_reason)
}
