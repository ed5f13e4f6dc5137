// Streaming cost: per text delta end to end (model chunk to the consumer's for await) against a
// bare async-generator loop over the same deltas, with a context of 10 and of 5,000 messages.
import { createAgent, UserMsg, type ModelChunk } from '../lib/index.js'
import { conversationLog, fastModel, line, now } from './helpers.js'

const DELTAS = 100_000
const deltas: ModelChunk[] = Array.from({ length: DELTAS }, (_, i) => ({ type: 'text', delta: `w${i % 10} ` }))

const bare = async () => {
  async function* source() {
    yield* deltas
  }
  let chars = 0
  const start = now()
  for await (const chunk of source()) if (chunk.type === 'text') chars += chunk.delta.length
  return (now() - start) / DELTAS
}

const agentRun = async (contextMessages: number) => {
  const agent = createAgent({ name: 'bench', model: fastModel([deltas]), log: conversationLog(contextMessages) })
  let seen = 0
  const start = now()
  for await (const event of agent.replyStream(UserMsg({ content: 'stream' }))) if (event.type === 'TEXT_BLOCK_DELTA') seen++
  const perDelta = (now() - start) / DELTAS
  if (seen !== DELTAS) throw new Error(`expected ${DELTAS} deltas, saw ${seen}`)
  return perDelta
}

const best = async (run: () => Promise<number>, times = 3) => {
  let min = Infinity
  for (let i = 0; i < times; i++) min = Math.min(min, await run())
  return min
}

export const streaming = async () => {
  console.log(`\nStreaming: ${DELTAS.toLocaleString()} text deltas in one reply (warmed up, best of 4, interleaved)`)
  const bareUs = (await best(bare)) * 1000
  await agentRun(10)
  let small = Infinity
  let large = Infinity
  for (let i = 0; i < 4; i++) {
    small = Math.min(small, (await agentRun(10)) * 1000)
    large = Math.min(large, (await agentRun(5000)) * 1000)
  }
  line('bare async-generator loop, per delta', `${bareUs.toFixed(3)} µs`)
  line('agentlog end to end, context of 10 messages, per delta', `${small.toFixed(3)} µs`, '≤ 3 µs')
  line('agentlog end to end, context of 5,000 messages, per delta', `${large.toFixed(3)} µs`)
  line('ratio 5,000 / 10 messages', `${(large / small).toFixed(2)}`, '≤ 1.5')
  line('overhead over the bare loop', `${(small / bareUs).toFixed(1)}x`)
}
