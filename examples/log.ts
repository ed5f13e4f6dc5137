// The log is the state: every event in order, the state is a fold of it, and replay(log) rebuilds
// the same state without calling a model or a tool, also after the log went through JSON.
// Run: npx tsx examples/log.ts
// expect: replay(log) deep-equals agent.state: true
// expect: REPLY_START MODEL_CALL_START TEXT_BLOCK_START
import { isDeepStrictEqual } from 'node:util'
import { createAgent, replay, scriptedModel, say } from 'agentlog'

const agent = createAgent({ name: 'Friday', model: scriptedModel([[...say('Hello!')]]) })
await agent.reply('Hi')

agent.log                  // every event so far, in order (its position is in event.metadata.seq)
agent.state                // { session_id, reply_id, status, cur_iter, context, reply_msg, usage, ... }
replay(agent.log)          // deep-equals agent.state; never calls a model or a tool

console.log(agent.log.map((e) => e.type).join(' '))
const stored = JSON.stringify(agent.log)   // a log is plain JSON: store it anywhere
console.log('replay(log) deep-equals agent.state:', isDeepStrictEqual(replay(JSON.parse(stored)), agent.state))
