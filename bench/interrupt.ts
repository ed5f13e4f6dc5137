// Interrupt latency: time from abort() to the REPLY_END reaching the consumer, with 8 tools running
// (each honours its signal, but the reply never waits for them).
import { z } from 'zod'
import { sleep } from '../lib/core/abort.js'
import { callTool, createAgent, defineTool, UserMsg } from '../lib/index.js'
import { fastModel, line, median, now } from './helpers.js'

export const interruptLatency = async (runs = 200) => {
  const tool = defineTool({
    name: 'work', description: 'works for a while', input: z.object({ n: z.number() }), concurrencySafe: true,
    execute: async (_input, { signal }) => {
      await sleep(60_000, signal).catch(() => undefined)
      return 'done'
    },
  })
  const turn = Array.from({ length: 8 }, (_, i) => callTool(`c-${i}`, 'work', { n: i })).flat()
  const times: number[] = []
  for (let i = 0; i < runs; i++) {
    const agent = createAgent({ name: 'bench', model: fastModel([turn]), tools: [tool] })
    const controller = new AbortController()
    let started = 0
    let abortedAt = 0
    for await (const event of agent.replyStream(UserMsg({ content: 'go' }), { signal: controller.signal })) {
      if (event.type === 'TOOL_RESULT_START' && ++started === 8) {
        await sleep(1)
        abortedAt = now()
        controller.abort()
      }
      if (event.type === 'REPLY_END') times.push(now() - abortedAt)
    }
  }
  console.log(`\nInterrupt latency: abort() to REPLY_END at the consumer, 8 tools running (${runs} runs)`)
  line('median', `${(median(times) * 1000).toFixed(1)} µs`, '< 1 ms')
  line('p99', `${([...times].sort((a, b) => a - b)[Math.floor(times.length * 0.99)] * 1000).toFixed(1)} µs`)
}
