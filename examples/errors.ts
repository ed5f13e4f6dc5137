// What reply() rejects with, and one way to handle it (`npx tsx examples/errors.ts`): a ModelError
// when the model call failed (the reply is in the log with finished_reason 'error' and the agent
// stays usable), an AgentError with a code when the input is refused before anything is recorded.
// A hub session and a remoteAgent reject with the same errors.
// expect: the model failed (rate_limit): Too many requests; status: idle
// expect: REPLY_PAUSED: answer delete_file first
// expect: after the answer: Deleted.
import { z } from 'zod'
import { AgentError, callTool, createAgent, defineTool, ModelError, say, type ChatModel } from 'agentlog'

// A model whose first call fails the way a provider's rate limit does, then answers.
let calls = 0
const model: ChatModel = {
  name: 'flaky',
  async *stream() {
    calls += 1
    if (calls === 1) throw new ModelError({ type: 'rate_limit', message: 'Too many requests' })
    if (calls === 2) yield* callTool('c-1', 'delete_file', { path: '/tmp/a.txt' })
    else yield* say('Deleted.')
  },
}
const deleteFile = defineTool({
  name: 'delete_file', description: 'Deletes a file', input: z.object({ path: z.string() }), permission: 'ask',
  execute: ({ path }) => `deleted ${path}`,
})
const agent = createAgent({ name: 'Friday', model, tools: [deleteFile] })

/** Sends a message; says what went wrong instead of throwing for the errors a caller can act on. */
const send = async (text: string) => {
  try {
    return await agent.reply(text)
  } catch (error) {
    if (error instanceof ModelError) console.log(`the model failed (${error.type}): ${error.message}; status: ${agent.state.status}`)
    else if (error instanceof AgentError && error.code === 'REPLY_PAUSED') console.log(`REPLY_PAUSED: answer ${agent.state.waiting_for.map((call) => call.name).join(', ')} first`)
    else throw error // a bug, or the log failed (LOG_UNAVAILABLE): let it surface
    return null
  }
}

await send('Delete /tmp/a.txt')                 // the model call fails: a ModelError
const paused = await send('Delete /tmp/a.txt')  // pauses: delete_file asks first
await send('Something else')                    // refused while paused: REPLY_PAUSED
const done = await agent.approve(paused!.waiting_for[0].id)
console.log('after the answer:', done.text)
