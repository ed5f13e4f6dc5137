// Your own model: a ChatModel is a name and a stream(request, { signal }) that yields chunks. This
// one echoes the user's last message word by word and calls a tool when asked to; scriptedModel's
// steps (chunks, delays, failures) are shown beside it. Run: npx tsx examples/customModel.ts
// expect: echo: hello there
// expect: the tool said: 12:00
// expect: scripted: the model failed: the provider is down
import { createAgent, defineTool, scriptedModel, textOf, ModelError, type ChatModel, type ModelChunk } from 'agentlog'
import { z } from 'zod'

const echo: ChatModel = {
  name: 'echo',
  async *stream(request, { signal }): AsyncIterable<ModelChunk> {
    const last = request.messages.at(-1)!
    // After a tool result, answer with it; otherwise echo the user's text, or call the tool.
    const result = last.content.find((block) => block.type === 'tool_result')
    if (result) {
      yield { type: 'text', delta: `the tool said: ${JSON.stringify(result.output).match(/\d\d:\d\d/)?.[0]}` }
      return
    }
    const text = textOf(last)
    if (text === 'time?') {
      yield { type: 'tool_call', id: 'call-1', name: 'get_time', delta: '{}' }
      return
    }
    for (const word of `echo: ${text}`.split(/(?= )/)) {
      if (signal.aborted) return   // a Stop aborts the signal; a real adapter aborts its HTTP request
      yield { type: 'text', delta: word }
    }
    yield { type: 'usage', input_tokens: text.length, output_tokens: text.length + 6 }
  },
}

const getTime = defineTool({ name: 'get_time', description: 'The time', input: z.object({}), execute: () => '12:00' })
const agent = createAgent({ name: 'Friday', model: echo, tools: [getTime] })
console.log((await agent.reply('hello there')).text)
console.log((await agent.reply('time?')).text)

// scriptedModel plays one turn per model call. A turn is a list of steps: chunks (say, think,
// callTool and usage build them), { type: 'delay', ms } and { type: 'fail', error }.
const scripted = scriptedModel([
  [{ type: 'text', delta: 'Thinking about it' }, { type: 'delay', ms: 10 }, { type: 'fail', error: new Error('the provider is down') }],
])
const second = createAgent({ name: 'Friday', model: scripted })
try {
  await second.reply('hi')
} catch (error) {
  if (error instanceof ModelError) console.log(`scripted: the model failed: ${error.message}`)
  else throw error
}
