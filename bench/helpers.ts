// Benchmark helpers: timing, a model that streams a fixed list of chunks with no delay, and a log
// that holds a conversation of a given length (so a new reply starts with that context).
import { counterClock, createEvent, memoryLog, type AgentEvent, type ChatModel, type ModelChunk, type LogStore } from '../lib/index.js'

export const now = () => performance.now()

/** Wall time and CPU time (steadier on a shared machine), both in the unit the caller divides into. */
export interface Figure { wall: number; cpu: number }

/** User plus system CPU time of this process so far, in milliseconds. */
export const cpuNow = () => {
  const { user, system } = process.cpuUsage()
  return (user + system) / 1000
}

/** `count` short text deltas, as a model streams them. */
export const textDeltas = (count: number): ModelChunk[] => Array.from({ length: count }, (_, i) => ({ type: 'text', delta: `w${i % 10} ` }))

export const us = (f: Figure) => `${f.wall.toFixed(3)} / ${f.cpu.toFixed(3)} µs`
export const ratio = (a: Figure, b: Figure) => `${(a.wall / b.wall).toFixed(2)} / ${(a.cpu / b.cpu).toFixed(2)}`

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

/** A model that plays `turns` in a loop, with no timer at all. */
export const fastModel = (turns: ModelChunk[][]): ChatModel => {
  let call = 0
  return {
    name: 'fast',
    async *stream() {
      yield* turns[call++ % turns.length]
    },
  }
}

/** Plays `chunks`, each in a task of its own (after a setImmediate), as one network read per chunk would. */
export const onePerTask = (chunks: ModelChunk[]): ChatModel => ({
  name: 'one-per-task',
  async *stream() {
    for (const chunk of chunks) {
      await new Promise((resolve) => setImmediate(resolve))
      yield chunk
    }
  },
})

/** A log holding `messages` messages: alternating user messages and completed one-block replies. */
export const conversationLog = (messages: number): LogStore => {
  const clock = counterClock('h')
  const events: AgentEvent[] = []
  const push = (event: AgentEvent) => events.push({ ...event, metadata: { seq: events.length + 1 } } as AgentEvent)
  for (let i = 0; i < messages / 2; i++) {
    const at = clock.now()
    push(createEvent(clock, 'USER_MESSAGE', { msg: { id: clock.id(), name: 'user', role: 'user', content: [{ type: 'text', id: clock.id(), text: `question ${i}`, created_at: at, finished_at: at }], metadata: {}, created_at: at, usage: null, finished_at: at, finished_reason: null, structured_output: null, error: null } }))
    const reply_id = clock.id()
    const block_id = clock.id()
    push(createEvent(clock, 'REPLY_START', { session_id: 's', reply_id, name: 'bench', role: 'assistant' }))
    push(createEvent(clock, 'MODEL_CALL_START', { reply_id, model_name: 'fast' }))
    push(createEvent(clock, 'TEXT_BLOCK_START', { reply_id, block_id }))
    push(createEvent(clock, 'TEXT_BLOCK_DELTA', { reply_id, block_id, delta: `answer ${i}` }))
    push(createEvent(clock, 'TEXT_BLOCK_END', { reply_id, block_id }))
    push(createEvent(clock, 'MODEL_CALL_END', { reply_id, input_tokens: 1, output_tokens: 1, cache_input_tokens: 0, cache_creation_input_tokens: 0, finished_reason: 'completed' }))
    push(createEvent(clock, 'REPLY_END', { session_id: 's', reply_id, finished_reason: 'completed', error: null }))
  }
  return memoryLog(events)
}

export const line = (label: string, value: string, goal?: string) =>
  console.log(`${label.padEnd(58)} ${value.padStart(20)}${goal ? `   (goal ${goal})` : ''}`)
