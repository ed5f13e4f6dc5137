// Shared fixtures for specs: deterministic agents on scripted models, tools that record when they
// start and whether their signal fired, and checks of REFERENCE.md section 5 invariants.
import { isDeepStrictEqual } from 'node:util'
import * as assert from 'uvu/assert'
import { z } from 'zod'
import {
  callTool, counterClock, createAgent, defineTool, replay, say, scriptedModel, usage,
  type Agent, type AgentEvent, type ScriptedModelOptions, type OutputEvent, type ScriptedTurn, type Tool, type ToolCallBlock,
} from '../../lib/index.js'
import { sleep } from '../../lib/core/abort.js'

export interface ToolProbe {
  started: { id: string; at: number }[]
  aborted: string[]
  finished: string[]
  /** 'start:id' and 'end:id' in the order they happened. */
  timeline: string[]
}

export const probe = (): ToolProbe => ({ started: [], aborted: [], finished: [], timeline: [] })

/** A tool that waits `ms` (honouring its signal unless `ignoreSignal`), then answers. */
export const slowTool = (p: ToolProbe, { name = 'slow', ms = 20, safe = false, ignoreSignal = false } = {}): Tool =>
  defineTool({
    name, description: `Waits ${ms} ms`, input: z.object({ x: z.string() }), concurrencySafe: safe,
    execute: async ({ x }, { signal, tool_call_id }) => {
      p.started.push({ id: tool_call_id, at: Date.now() })
      p.timeline.push(`start:${tool_call_id}`)
      signal.addEventListener('abort', () => p.aborted.push(tool_call_id))
      await sleep(ms, ignoreSignal ? undefined : signal)
      p.finished.push(tool_call_id)
      p.timeline.push(`end:${tool_call_id}`)
      return `${name}:${x}`
    },
  })

export const twoToolScript = (): ScriptedTurn[] => [
  [...say('Checking two things.', 3), ...callTool('call-1', 'slow', { x: 'a' }, 3), ...callTool('call-2', 'slow', { x: 'b' }, 2), usage(11, 7)],
  [...say('Both are done.', 3), usage(20, 4)],
  [...say('Hello again.', 2), usage(30, 2)],
]

type AgentExtras = Partial<Parameters<typeof createAgent>[0]> & { modelOptions?: ScriptedModelOptions }

export const makeAgent = (turns: ScriptedTurn[], tools: Tool[], { modelOptions, ...extra }: AgentExtras = {}) => {
  const model = scriptedModel(turns, modelOptions)
  const agent = createAgent({ name: 'Friday', sysPrompt: 'You are helpful.', model, tools, clock: counterClock('e'), ...extra })
  return { agent, model }
}

export const collect = async (stream: AsyncIterable<OutputEvent>): Promise<OutputEvent[]> => {
  const out: OutputEvent[] = []
  for await (const event of stream) out.push(event)
  return out
}

export const types = (events: readonly AgentEvent[]) => events.map((e) => e.type)

/** REFERENCE.md section 5, invariants 1-3 and 6, checked on a settled agent (not mid-reply). */
export const checkInvariants = (agent: Agent, usageBefore = 0) => {
  const state = agent.state
  const messages = state.reply_msg ? [...state.context, state.reply_msg] : state.context
  if (state.status === 'idle') {
    for (const msg of messages) {
      const calls = msg.content.filter((b): b is ToolCallBlock => b.type === 'tool_call')
      for (const call of calls) {
        const results = msg.content.filter((b) => b.type === 'tool_result' && b.id === call.id)
        assert.is(results.length, 1, `tool call ${call.id} has exactly one result`)
        assert.is(call.state, 'finished', `tool call ${call.id} is finished`)
        assert.ok(msg.content.indexOf(results[0]) > msg.content.indexOf(call), 'the result follows its call')
      }
    }
  }
  const starts = agent.log.filter((e) => e.type === 'REPLY_START').length
  const ends = agent.log.filter((e) => e.type === 'REPLY_END').length
  assert.is(ends, state.status === 'idle' ? starts : starts - 1, 'one REPLY_END per reply that is not in progress')
  assert.ok(isDeepStrictEqual(replay(JSON.parse(JSON.stringify(agent.log))), state), 'replay(log) deep-equals the state')
  assert.ok(state.usage.input_tokens >= usageBefore, 'usage never decreases')
}
