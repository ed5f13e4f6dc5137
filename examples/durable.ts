// Durable logs: a JSONL file log, reopened by a new agent that carries on where the first stopped;
// the state at any earlier point (stateAt) and a new session forked from it (fork).
// Run: npx tsx examples/durable.ts
// expect: reopened: 2 messages, last: "Noted: you like tea."
// expect: at seq 3: running
// expect: forked session answers: Forked: hello again.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createAgent, scriptedModel, say, stateAt, fork, textOf } from 'agentlog'
import { fileLog } from 'agentlog/node'

const dir = mkdtempSync(join(tmpdir(), 'agentlog-example-'))
const path = join(dir, 'session.jsonl')
const model = scriptedModel([[...say('Noted: you like tea.')]])

const agent = createAgent({ name: 'Friday', model, log: fileLog(path, { durability: 'always', snapshots: true }) })
await agent.reply('I like tea.')
await agent.close()                            // flushes and releases the lock

// Later (or after a crash, in a new process): the same file. A reply cut by a crash is closed as
// interrupted (every tool call answered); a paused reply stays paused.
const again = createAgent({ name: 'Friday', model, log: fileLog(path) })
console.log(`reopened: ${again.state.context.length} messages, last: "${textOf(again.state.context.at(-1)!)}"`)

console.log(`at seq 3: ${stateAt(again.log, 3).status}`)   // the state after event 3
const branch = fork(again.log, 1, { name: 'Friday', model: scriptedModel([[...say('Forked: hello again.')]]) })  // a new agent (new session) from that point; the old log untouched
console.log(`forked session answers: ${(await branch.reply('Hello?')).text}`)

await again.close()
rmSync(dir, { recursive: true })
