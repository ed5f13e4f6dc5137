// The agent of the tree fault spec: a stateless model that follows a plan written in the user
// message ("plan {json}"), so any process can reopen any session and answer the same. A plan is
// `{ c: Step[] }`; its steps become tool calls of one model response (parallel): `count` (runs,
// waits `ms`, counts), `ask` (the same, asking first), `ext` (an external tool) and `sub` (a
// sub-agent given its own plan). After the results it streams a short answer.
import { z } from 'zod'
import { sleep } from '../../../lib/core/abort.js'
import { agentTool, defineTool, type ChatModel, type ModelChunk, type Msg, type Tool } from '../../../lib/index.js'

export type Step = { t: 'count' | 'ask'; ms: number } | { t: 'ext' } | { t: 'sub'; p: Plan }
export interface Plan { c: Step[] }

const textOf = (msg: Msg | undefined): string =>
  msg?.content.filter((b) => b.type === 'text').map((b) => (b as { text: string }).text).join('') ?? ''

export const planModel: ChatModel = {
  name: 'plan-model',
  async *stream(request, { signal }) {
    const last = request.messages.at(-1)
    const answered = last?.role === 'assistant' && last.content.some((b) => b.type === 'tool_result')
    const user = [...request.messages].reverse().find((m) => m.role === 'user')
    const text = textOf(user)
    const plan: Plan = text.startsWith('plan ') && !answered ? JSON.parse(text.slice(5)) as Plan : { c: [] }
    for (let i = 0; i < 3; i++) {
      await sleep(2, signal)
      yield { type: 'text', delta: `${answered ? 'done' : 'working'} ${i} ` } satisfies ModelChunk
    }
    for (const [i, step] of plan.c.entries()) {
      const id = `${user?.id ?? 'u'}-${i}`
      if (step.t === 'sub') yield { type: 'tool_call', id, name: 'sub', delta: JSON.stringify({ task: `plan ${JSON.stringify(step.p)}` }) }
      else if (step.t === 'ext') yield { type: 'tool_call', id, name: 'ext', delta: JSON.stringify({ q: id }) }
      else yield { type: 'tool_call', id, name: step.t, delta: JSON.stringify({ ms: step.ms }) }
    }
    yield { type: 'usage', input_tokens: 1, output_tokens: 1 }
  },
}

/** The tools of a plan; `count(key)` records one run of a call (`session/tool_call_id`) outside the agent. */
export const planTools = (count: (key: string) => void): Tool[] => {
  const run = async ({ ms }: { ms: number }, { signal, session_id, tool_call_id }: { signal: AbortSignal; session_id?: string; tool_call_id: string }) => {
    await sleep(ms, signal)
    count(`${session_id}/${tool_call_id}`)
    return 'counted'
  }
  const tools: Tool[] = [
    defineTool({ name: 'count', description: 'Runs and counts', input: z.object({ ms: z.number() }), execute: run }),
    defineTool({ name: 'ask', description: 'Asks, then runs and counts', input: z.object({ ms: z.number() }), permission: 'ask', execute: run }),
    defineTool({ name: 'ext', description: 'Runs on the client', input: z.object({ q: z.string() }), external: true }),
  ]
  tools.push(agentTool({ name: 'sub', description: 'A sub-agent with a plan of its own', textIntervalMs: 0, agent: () => ({ name: 'Helper', model: planModel, tools }) }))
  return tools
}

export const planAgent = (count: (key: string) => void) => () => ({ name: 'Lead', model: planModel, tools: planTools(count) })
