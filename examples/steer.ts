// Talking to a running agent: steer it (a message that joins the running reply before its next model
// call), queue for it (a message that starts the next reply), take a queued message back, stop it
// gently (what runs finishes, nothing new starts) or at once (the queue is handed back), and let the
// model ask the user a question (askUser).
// Run: npx tsx examples/steer.ts
// expect: steer joined reply
// expect: the model's next request ends with: Keep the public API unchanged
// expect: queued at position 0
// expect: the queue started: Then update the changelog
// expect: gentle stop: the running tool finished (success), the next call was interrupted
// expect: handed back: Write the release notes
// expect: asked: Which branch? [main, next]
// expect: answered: {"choice":"next"}
import { askUser, callTool, createAgent, defineTool, outputText, say, scriptedModel, textOf } from 'agentlog'
import { z } from 'zod'

const work = defineTool({
  name: 'work', description: 'Works on a file for a while', input: z.object({ file: z.string() }),
  execute: async ({ file }) => (await new Promise((resolve) => setTimeout(resolve, 50)), `worked on ${file}`),
})
const model = scriptedModel([
  [...say('Refactoring.'), ...callTool('c-1', 'work', { file: 'parser.ts' })],   // reply 1, step 1
  [...say('Done, the public API is unchanged.')],                                 // reply 1, step 2 (sees the steer)
  [...say('Changelog updated.')],                                                 // reply 2 (the queued message)
  [...callTool('c-2', 'work', { file: 'a.ts' }), ...callTool('c-3', 'work', { file: 'b.ts' })], // reply 3
  [...callTool('q-1', 'ask_user', { question: 'Which branch?', choices: ['main', 'next'] })],  // reply 4
  [...say('Releasing from next.')],
])
const agent = createAgent({ name: 'Friday', model, tools: [work, askUser()] })

const run = agent.reply('Refactor the parser')                     // runs for a while
await new Promise((resolve) => setTimeout(resolve, 10))
const steered = await agent.steer('Keep the public API unchanged')  // joins before the next model call
const queued = await agent.queue('Then update the changelog')       // starts when this reply ends
console.log(`steer joined reply ${steered.reply_id === agent.state.reply_id ? 'in progress' : '?'}`)
console.log(`queued at position ${queued.position}`)
await run
console.log(`the model's next request ends with: ${textOf(model.requests[1].messages.at(-1)!)}`)
while (agent.state.status !== 'idle' || agent.state.queue.length) await new Promise((resolve) => setTimeout(resolve, 5))
console.log(`the queue started: ${textOf(agent.state.context.filter((m) => m.role === 'user').at(-1)!)}`)

// "Stop when you can": the running tool finishes with its real result; the next call never starts.
const third = agent.reply('Work on two files')
await new Promise((resolve) => setTimeout(resolve, 10))
const later = await agent.queue('Write the release notes')
agent.state.queue                                                  // [{ id, msg, queued_at }]
const stopped = await agent.interrupt({ when: 'step' })            // a person's Stop hands the queue back
await third
const results = agent.state.context.at(-1)!.content.flatMap((b) => (b.type === 'tool_result' ? [b.state] : []))
console.log(`gentle stop: the running tool finished (${results[0]}), the next call was ${results[1]}`)
console.log(`handed back: ${stopped.queue.map((e) => textOf(e.msg)).join(', ')} (${stopped.queue[0].id === later.id})`)
// agent.interrupt() stops at once; agent.interrupt({ keepQueue: true }) keeps the queue and starts it;
// agent.unqueue(id) takes one queued message back; reply(x, { whilePaused: 'interrupt' | 'queue' }).

// askUser(): the model asks; the reply parks like an external tool until the answer comes.
const asked = await agent.reply('Release it')
const [question] = asked.waiting_for
const { question: text, choices } = JSON.parse(question.input) as { question: string; choices: string[] }
console.log(`asked: ${text} [${choices.join(', ')}]`)
await agent.submitResult(question.id, { choice: 'next' })          // { choice } | { choices } | { text }, checked
const answer = agent.state.context.at(-1)!.content.find((b) => b.type === 'tool_result')
console.log(`answered: ${answer?.type === 'tool_result' ? outputText(answer.output) : ''}`)
