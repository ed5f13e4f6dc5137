// A stateless scripted model for session specs, where an agent is recreated whenever a hub reopens
// its session (even in another process): each answer depends only on the request. The last user
// message picks the turn: "ask ..." calls a tool that needs a confirmation, "ext ..." an external
// tool, "asktwice ..." that tool twice in turn, "slow ..." a tool that waits, "delegate TASK" a
// sub-agent (sessionTreeAgent) given TASK, "asklong N" (sessionTreeAgent) a tool that asks, then
// waits N ms, "stream N" streams N deltas 5 ms apart, "fail" fails the call; after a tool result it
// answers "done"; anything else is answered "ok: TEXT". With AGENTLOG_SPEC_EFFECTS set, each run of
// delete_file appends a line to that file (a side effect outside the agent, counted by specs).
import { appendFileSync } from 'node:fs'
import { z } from 'zod'
import { sleep } from '../../lib/core/abort.js'
import { agentTool, defineTool, ModelError, type ChatModel, type Clock, type ModelChunk, type Msg, type Tool } from '../../lib/index.js'

const lastText = (msg: Msg | undefined): string =>
  msg?.content.filter((b) => b.type === 'text').map((b) => (b as { text: string }).text).join('') ?? ''

export const sessionModel = (deltaMs = 5): ChatModel => ({
  name: 'session-model',
  async *stream(request, { signal }) {
    const last = request.messages.at(-1)
    const chunk = (c: ModelChunk) => c
    if (last?.role === 'assistant' && last.content.some((b) => b.type === 'tool_result')) {
      const asked = [...request.messages].reverse().find((m) => m.role === 'user')
      if (lastText(asked).startsWith('asktwice') && last.content.filter((b) => b.type === 'tool_result').length === 1) {
        yield chunk({ type: 'tool_call', id: `c2-${asked?.id ?? 'x'}`, name: 'delete_file', delta: JSON.stringify({ path: lastText(asked).slice(9) || '/tmp/x' }) })
        return
      }
      yield chunk({ type: 'text', delta: 'done' })
      return
    }
    const text = lastText(last)
    const id = `c-${last?.id ?? 'x'}`
    if (text.startsWith('asktwice')) yield chunk({ type: 'tool_call', id, name: 'delete_file', delta: JSON.stringify({ path: text.slice(9) || '/tmp/x' }) })
    else if (text.startsWith('asklong')) yield chunk({ type: 'tool_call', id, name: 'slow_delete', delta: JSON.stringify({ ms: Number(text.slice(8)) || 2000 }) })
    else if (text.startsWith('ask')) yield chunk({ type: 'tool_call', id, name: 'delete_file', delta: JSON.stringify({ path: text.slice(4) || '/tmp/x' }) })
    else if (text.startsWith('ext')) yield chunk({ type: 'tool_call', id, name: 'lookup', delta: JSON.stringify({ q: text.slice(4) }) })
    else if (text.startsWith('delegate ')) yield chunk({ type: 'tool_call', id, name: 'delegate', delta: JSON.stringify({ task: text.slice(9) }) })
    else if (text.startsWith('slow')) yield chunk({ type: 'tool_call', id, name: 'slow', delta: JSON.stringify({ ms: Number(text.slice(5)) || 2000 }) })
    else if (text === 'fail') throw new ModelError({ type: 'rate_limit', message: 'Too many requests' })
    else if (text.startsWith('stream')) {
      const n = Number(text.slice(7)) || 10
      for (let i = 0; i < n; i++) {
        await sleep(deltaMs, signal)
        yield chunk({ type: 'text', delta: `${i} ` })
      }
    } else yield chunk({ type: 'text', delta: `ok: ${text}` })
    yield chunk({ type: 'usage', input_tokens: 3, output_tokens: 2 })
  },
})

export const sessionTools = (): Tool[] => [
  defineTool({
    name: 'delete_file', description: 'Deletes a file (asks first)', input: z.object({ path: z.string() }), permission: 'ask',
    execute: ({ path }) => {
      // The side-effect counter outside the agent (specs of processes): one line per run, by pid.
      if (process.env.AGENTLOG_SPEC_EFFECTS) appendFileSync(process.env.AGENTLOG_SPEC_EFFECTS, `${process.pid} ${path}\n`)
      return `deleted ${path}`
    },
  }),
  defineTool({ name: 'lookup', description: 'Runs on the client', input: z.object({ q: z.string() }), external: true }),
  defineTool({
    name: 'slow', description: 'Waits', input: z.object({ ms: z.number() }),
    execute: async ({ ms }, { signal }) => {
      await sleep(ms, signal)
      return 'slow done'
    },
  }),
]

/** The agent options a hub gives every session in the specs. */
export const sessionAgent = (deltaMs = 5) => () => ({ name: 'Friday', model: sessionModel(deltaMs), tools: sessionTools() })

/** The tools of sessionTools, `slow_delete` (asks, then waits) and `delegate`, a sub-agent with the same model and tools (so "delegate delegate slow 60000" is a tree of depth 2). */
export const sessionTreeTools = (deltaMs = 5, clock?: Clock): Tool[] => {
  const tools: Tool[] = sessionTools()
  tools.push(defineTool({
    name: 'slow_delete', description: 'Asks, then waits', input: z.object({ ms: z.number() }), permission: 'ask',
    execute: async ({ ms }, { signal }) => {
      await sleep(ms, signal)
      return 'deleted slowly'
    },
  }))
  tools.push(agentTool({ name: 'delegate', description: 'Hands a task to a sub-agent', agent: () => ({ name: 'Helper', model: sessionModel(deltaMs), tools, ...(clock && { clock }) }) }))
  return tools
}

/** The agent options of a hub whose sessions can delegate (sessionTreeTools); `clock`: every agent's of the tree. */
export const sessionTreeAgent = (deltaMs = 5, clock?: Clock) => () => ({ name: 'Friday', model: sessionModel(deltaMs), tools: sessionTreeTools(deltaMs, clock), ...(clock && { clock }) })
