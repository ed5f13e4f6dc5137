// A reply paused in one process and approved in another: the first process asks to delete a file,
// the reply parks on the approval and the process exits; a second process (this file again, given
// the log's path) opens the same log, sees what the reply waits for, approves it, and the tool runs.
// Run: npx tsx examples/two-process.ts
// expect: process 1: paused, waiting for delete_file {"path":"/tmp/report.txt"}; exiting
// expect: process 2: the log says the reply waits for delete_file
// expect: process 2: ran delete /tmp/report.txt
// expect: process 2: reply completed: Deleting it. Deleted it.
// expect: process 1: the second process finished with code 0
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { z } from 'zod'
import { createAgent, defineTool, scriptedModel, say, callTool } from 'agentlog'
import { fileLog } from 'agentlog/node'

const deleteFile = defineTool({
  name: 'delete_file', description: 'Deletes a file', input: z.object({ path: z.string() }), permission: 'ask',
  execute: ({ path }) => {
    console.log(`process 2: ran delete ${path}`)
    return `deleted ${path}`
  },
})
// Each process has its own model: the first one proposes the call, the second sums up.
const model = scriptedModel([[...say('Deleting it. '), ...callTool('call-1', 'delete_file', { path: '/tmp/report.txt' })]])
const logPath = process.argv[2]

if (!logPath) {
  const dir = mkdtempSync(join(tmpdir(), 'agentlog-example-'))
  const path = join(dir, 'session.jsonl')
  const agent = createAgent({ name: 'Friday', model, tools: [deleteFile], log: fileLog(path) })
  const paused = await agent.reply('Delete /tmp/report.txt')
  console.log(`process 1: ${agent.state.status}, waiting for ${paused.waiting_for[0].name} ${paused.waiting_for[0].input}; exiting`)
  await agent.close()
  const second = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), path], { stdio: 'inherit' })
  console.log(`process 1: the second process finished with code ${second.status}`)
  rmSync(dir, { recursive: true })
} else {
  const agent = createAgent({ name: 'Friday', model: scriptedModel([[...say('Deleted it.')]]), tools: [deleteFile], log: fileLog(logPath) })
  const [call] = agent.state.waiting_for
  console.log(`process 2: the log says the reply waits for ${call.name}`)
  const reply = await agent.approve(call.id)
  console.log(`process 2: reply ${reply.finished_reason}: ${reply.text.replace(/\s+/g, ' ')}`)
  await agent.close()
}
