// Talking to a running agent (issue 30): (a) a steer sent while a tool runs reaches the very next
// model call (the steps and model calls it took, against the same reply without it), and (b) the cost
// per streamed delta of a reply with messages waiting in the queue and the steers (never copied per
// event), as a ratio to the same reply with nothing queued. TALK_DELTAS, TALK_RUNS make it smaller.
import { z } from 'zod'
import { sleep } from '../lib/core/abort.js'
import { callTool, createAgent, defineTool, scriptedModel, textOf, UserMsg, type ModelChunk } from '../lib/index.js'
import { cpuNow, line, now, ratio, textDeltas, us, type Figure } from './helpers.js'

const DELTAS = Number(process.env.TALK_DELTAS ?? 100_000)
const RUNS = Number(process.env.TALK_RUNS ?? 8)

/** (a) The model calls a reply makes when a steer arrives while its first step's tool runs, and where the steer is. */
const steerSteps = async () => {
  const wait = defineTool({ name: 'wait', description: 'Waits', input: z.object({}), execute: async () => (await sleep(20), 'waited') })
  const model = scriptedModel([[...callTool('c-1', 'wait', {})], [{ type: 'text', delta: 'done' }]])
  const agent = createAgent({ name: 'bench', model, tools: [wait] })
  let steeredAt = 0
  let joinedAt = 0
  const joined = agent.events$.subscribe((e) => { if (e.type === 'STEER_JOINED') joinedAt = now() })
  for await (const event of agent.replyStream('go')) {
    if (event.type === 'TOOL_RESULT_START') {
      await agent.steer('also this')
      steeredAt = now()
    }
  }
  joined.unsubscribe()
  const index = model.requests.findIndex((r) => r.messages.some((m) => textOf(m) === 'also this'))
  return { calls: model.requests.length, step: index, waitedMs: joinedAt - steeredAt }
}

/** (b) Microseconds per delta of one reply streaming DELTAS deltas, with `waiting` messages queued and steered before it streams. */
const streamWith = async (waiting: number): Promise<Figure> => {
  const deltas: ModelChunk[] = textDeltas(DELTAS)
  let open = () => {}
  const gate = new Promise<void>((resolve) => { open = resolve })
  // The model streams once the messages wait, so the consumer reads every delta as it comes in both runs.
  const model = { name: 'gate', async *stream() { await gate; yield* deltas } }
  const agent = createAgent({ name: 'bench', model })
  let at = { wall: 0, cpu: 0 }
  for await (const event of agent.replyStream(UserMsg({ content: 'stream' }))) {
    if (event.type === 'MODEL_CALL_START' && at.wall === 0) {
      for (let i = 0; i < waiting; i++) await (i % 2 ? agent.steer(`steer ${i}`) : agent.queue(`queued ${i}`))
      at = { wall: now(), cpu: cpuNow() }
      open()
    }
    // Timed to the end of the streamed model call (the steers would join for another one).
    if (event.type === 'MODEL_CALL_END') break
  }
  const figure = { wall: ((now() - at.wall) / DELTAS) * 1000, cpu: ((cpuNow() - at.cpu) / DELTAS) * 1000 }
  await agent.close()
  return figure
}

export const talk = async () => {
  const steer = await steerSteps()
  console.log('\nTalking to a running agent: a steer while the tool of step 1 runs')
  line('model calls of the reply (without the steer: 2)', String(steer.calls), '2: no extra model call')
  line('the model call that first holds the steer', steer.step === 1 ? 'the next one (2nd)' : `#${steer.step + 1}`, 'the next one')
  line('  steer acknowledged to STEER_JOINED', `${steer.waitedMs.toFixed(1)} ms (the tool's rest)`)
  const best = { none: { wall: Infinity, cpu: Infinity }, some: { wall: Infinity, cpu: Infinity } }
  await streamWith(0)
  await streamWith(20)
  for (let i = 0; i < RUNS; i++) {
    for (const [key, waiting] of [['none', 0], ['some', 20]] as const) {
      const figure = await streamWith(waiting)
      best[key] = { wall: Math.min(best[key].wall, figure.wall), cpu: Math.min(best[key].cpu, figure.cpu) }
    }
  }
  console.log(`Queueing's cost per event: ${DELTAS.toLocaleString()} deltas, best of ${RUNS}; wall / CPU time`)
  line('per delta, nothing waiting', us(best.none))
  line('per delta, 10 queued and 10 steers waiting', us(best.some))
  line('ratio waiting / nothing waiting', ratio(best.some, best.none), '≤ 1.05')
}
