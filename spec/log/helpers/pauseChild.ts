// One step of the cross-process pause specs, run in its own process on a file log; it prints one
// JSON line with what it saw. Usage: pauseChild.ts STEP LOG_PATH, STEP one of: ask (pause on a
// confirmation), confirm (confirm it, finish, pause on a new one), interrupt (interrupt that pause,
// then reply again), submit (pause on an external call), result (give the external result).
import { callTool, createAgent, say, scriptedModel, type ScriptedTurn, ExternalExecutionResultEvent, ToolResultBlock, UserConfirmResultEvent, UserInterruptEvent, UserMsg, type Agent, type AgentInput } from '../../../lib/index.js'
import { fileLog } from '../../../lib/stores/file/index.js'
import { allTools } from './agents.js'

const [step, path] = process.argv.slice(2)

const scripts: Record<string, ScriptedTurn[]> = {
  ask: [callTool('k1', 'delete_file', { path: '/a' })],
  confirm: [say('Deleted /a.'), callTool('k2', 'delete_file', { path: '/b' })],
  interrupt: [say('Fine, nothing deleted.')],
  submit: [callTool('x1', 'lookup', { q: 'weather' })],
  result: [say('The client says sunny.')],
}

const run = async (agent: Agent, input: AgentInput) => {
  const types: string[] = []
  for await (const event of agent.replyStream(input)) types.push(event.type)
  return { types, reply_id: agent.state.reply_id, status: agent.state.status, waiting: agent.state.waiting_for.map((c) => `${c.id}:${c.state}`) }
}

const agent = createAgent({ name: 'Friday', model: scriptedModel(scripts[step]), tools: allTools(), log: fileLog(path, { durability: 'always' }) })
const opened = { status: agent.state.status, reply_id: agent.state.reply_id, waiting: agent.state.waiting_for.map((c) => `${c.id}:${c.state}`) }
const reply_id = agent.state.reply_id!
const waiting = agent.state.waiting_for
const steps: Record<string, () => Promise<unknown[]>> = {
  ask: async () => [await run(agent, UserMsg({ content: 'Delete /a.' }))],
  confirm: async () => [
    await run(agent, UserConfirmResultEvent({ reply_id, confirm_results: [{ confirmed: true, tool_call: waiting[0] }] })),
    await run(agent, UserMsg({ content: 'Now delete /b.' })),
  ],
  interrupt: async () => [await run(agent, UserInterruptEvent({ reply_id })), await run(agent, UserMsg({ content: 'Never mind.' }))],
  submit: async () => [await run(agent, UserMsg({ content: 'Weather?' }))],
  result: async () => [await run(agent, ExternalExecutionResultEvent({ reply_id, execution_results: [ToolResultBlock({ id: waiting[0].id, name: waiting[0].name, output: 'sunny' })] }))],
}
const runs = await steps[step]()
await agent.close()
process.stdout.write(`${JSON.stringify({ pid: process.pid, opened, runs, context: agent.state.context.length })}\n`)
